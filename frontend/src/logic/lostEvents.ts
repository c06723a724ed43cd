// The lost-events rule, the one the collector, ingest and the capture page apply alike
// (docs/lost-events.md; tested on testdata/vectors/lost-events.json in TypeScript and Python).
// Pure; tests in lostEvents.test.ts.

/** Fewer missing events than this are perf record's own start and stop, never a loss. */
export const LOST_MIN_MISSING = 32;
/** A recording holding less than this share of perf stat's count lost events (90 %). */
export const LOST_THRESHOLD = 0.9;

/**
 * Whether a recording lost events: perf stat, counting the same events over the same run, counted
 * more than LOST_MIN_MISSING more than were recorded, and the recording holds less than 90 % of
 * the count (10 x recorded < 9 x counted: exact in integers). Nothing is checked without a count.
 */
export function recordedShort(recorded: number | null, counted: number | null): boolean {
  if (recorded === null || counted === null || counted === 0) return false;
  return counted - recorded > LOST_MIN_MISSING && 10 * recorded < 9 * counted;
}
