// Lint says "pg_trgm is not installed" only for the errors that mean it; every other failure of
// the title-similarity query (a timeout, a cancel, a lost connection, a bug) propagates.
import { expect, it } from 'vitest';
import { trigramsUnavailable } from '../../services/curation/similar-titles.js';

const dbError = (code: string) => Object.assign(new Error(`error ${code}`), { code });

it('pg_trgm counts as missing only for an unknown function, a missing schema or a missing library', () => {
  for (const code of ['42883', '3F000', '58P01']) expect(trigramsUnavailable(dbError(code)), code).toBe(true);
  for (const code of ['57014', '25P02', '08006', '42P01', '53300']) expect(trigramsUnavailable(dbError(code)), code).toBe(false);
  expect(trigramsUnavailable(new TypeError('x is undefined'))).toBe(false);
  expect(trigramsUnavailable(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(false);
  expect(trigramsUnavailable(undefined)).toBe(false);
});
