import { describe, expect, it } from 'vitest';
import { vectors } from '../testdata/vectors';
import { LOST_MIN_MISSING, LOST_THRESHOLD, recordedShort } from './lostEvents';

interface LostVectors {
  min_missing: number;
  threshold: number;
  cases: { name: string; recorded: number; counted: number | null; lost: boolean }[];
}
const v = vectors<LostVectors>('lost-events');

describe('lost-events rule (testdata/vectors/lost-events.json)', () => {
  it('one threshold and floor', () => {
    expect([LOST_THRESHOLD, LOST_MIN_MISSING]).toEqual([v.threshold, v.min_missing]);
  });
  it.each(v.cases.map((c) => [c.name, c] as const))('%s', (_, c) => expect(recordedShort(c.recorded, c.counted)).toBe(c.lost));
});
