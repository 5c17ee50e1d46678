// The domain layer: typed operations over one subject's brain, each validating its input
// with zod and failing with a BrainError (stable code, message, hint).
export * from './archive.js';
export * from './context.js';
export * from './errors.js';
export * from './episodes.js';
export * from './get.js';
export * from './history.js';
export * from './kinds.js';
export * from './links.js';
export * from './sources.js';
export * from './tags.js';
export * from './topics.js';
export * from './upcast.js';
export * from './schemas.js';
