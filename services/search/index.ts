// Retrieval: hybrid search, the embed worker, search before add, budgeted context.
export * from './budget.js';
export * from './context-pack.js';
export * from './fusion.js';
export * from './reembed.js';
export * from './remember.js';
export * from './search.js';
export * from './text-query.js';
export * from './text-search-config.js';
export * from './types.js';
export * from './worker.js';
export { countPending } from './pending.js';
export { subjectsWithVectors } from './vectors.js';
export * from './render.js';
