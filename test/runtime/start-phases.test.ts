// The start line's numbers (services/runtime/start-phases.ts) are written as toLocaleString('en')
// writes them, without loading ICU's locale data on the way to a server's first request.
import { describe, expect, it } from 'vitest';
import { groupThousands, phaseList } from '../../services/runtime/start-phases.js';

describe('start phases', () => {
  it('groups thousands as toLocaleString("en") does', () => {
    const values = [0, 7, 999, 1_000, 1_240, 12_345, 999_999, 1_000_000, 27_400_123, -1_234, 12.7];
    expect(values.map(groupThousands)).toEqual(['0', '7', '999', '1,000', '1,240', '12,345', '999,999', '1,000,000', '27,400,123', '-1,234', '12']);
    for (const v of values.filter(Number.isInteger)) expect(groupThousands(v)).toBe(v.toLocaleString('en'));
  });

  it('lists the steps with their times', () => {
    expect(phaseList([{ phase: 'modules loaded', ms: 480, at: 480 }, { phase: 'PGlite opened', ms: 1_240, at: 1_720 }])).toBe('modules loaded 480 ms, PGlite opened 1,240 ms');
  });
});
