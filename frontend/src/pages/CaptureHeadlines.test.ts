import { describe, expect, it } from 'vitest';
import { formatFigure } from './CaptureHeadlines';

describe("the capture page's probe figures", () => {
  it('counts with separators and their unit, the rest as the tables show them', () => {
    expect(formatFigure({ value: 36224, unit: 'I/Os' })).toBe('36,224 I/Os');
    expect(formatFigure({ value: 1655.33, unit: 'events/run' })).toBe('1,655 events/run');
    expect(formatFigure({ value: 2.1114, unit: '' })).toBe('2.11');
    expect(formatFigure({ value: 9511.7, unit: 'IO/s' })).toBe('9.512k IO/s');
    expect(formatFigure({ value: 3683127, unit: 'ns' })).toBe('3.68 ms');
    expect(formatFigure({ value: null, unit: 'ns' })).toBe('–');
  });
});
