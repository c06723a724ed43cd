import { describe, expect, it } from 'vitest';
import { A, B, C } from '../testdata/fixtures';
import { available, lockComparison, lockPoints, lockTop, NOTE, unavailable } from '../testdata/lockStat';
import { buildCompareTable, buildPoints, buildTopTable, className, codeSpans, formatCount, formatDelta, formatNs, formatRate, rateColumn, reasonText, rwLabels, sourceShort } from './lockStat';

describe('number formats', () => {
  it('counts, rates and signed differences', () => {
    expect(formatCount(1203433)).toBe('1,203,433');
    expect(formatCount(null)).toBe('–');
    expect(formatRate(0.030125)).toBe('0.0301');
    expect(formatRate(1.2)).toBe('1.20');
    expect(formatRate(12)).toBe('12.0');
    expect(formatRate(1204.4)).toBe('1,204');
    expect(formatRate(0)).toBe('0');
    expect(formatDelta(200, 'ns')).toBe('+200 ns');
    expect(formatDelta(-1234, 'ns')).toBe('-1.23 µs');
    expect(formatDelta(0.02, '')).toBe('+0.0200');
    expect(formatDelta(0, 'ns')).toBe('±0');
    expect(formatDelta(null, 'ns')).toBe('');
    expect(formatDelta(-0.5, 'ns')).toBe('-0.500 ns');
    expect(formatNs(12)).toBe('12.0 ns');
    expect(formatNs(84_500)).toBe('84.5 µs');
  });

  it('class names and code spans', () => {
    expect(className('&rq->lock/1', 0)).toBe('&rq->lock/1');
    expect(className('(work_completion)(&(&sbi->s_err_repor', 1)).toBe('(work_completion)(&(&sbi->s_err_repor (2nd of this name)');
    expect(codeSpans('use `perf lock contention` here')).toEqual([
      { text: 'use ', code: false },
      { text: 'perf lock contention', code: true },
      { text: ' here', code: false },
    ]);
  });

  it('labels read rows, and write rows only of reader-writer locks', () => {
    const rows = [
      { lock_class: 'a', occurrence: 0, rw: 'W' as const },
      { lock_class: 'a', occurrence: 0, rw: 'R' as const },
      { lock_class: 'b', occurrence: 0, rw: 'W' as const },
    ];
    const label = rwLabels(rows);
    expect(rows.map(label)).toEqual(['write', 'read', '']);
  });
});

describe('buildCompareTable', () => {
  const t = buildCompareTable(lockComparison);

  it('keeps captures with lock_stat as columns, baseline first, and says why for the others', () => {
    expect(t.columns.map((c) => c.id)).toEqual([A, B]);
    expect(t.columns[0]!.isBaseline).toBe(true);
    expect(t.missing.map((c) => [c.id, c.availability.reason])).toEqual([[C, NOTE]]);
    expect(t.baseHasLockStat).toBe(true);
  });

  it('per I/O: contentions, cont./I/O, avg wait, wait/I/O and the change in wait per I/O', () => {
    expect(t.perOp).toBe(true);
    expect(t.metrics.map((m) => m.label)).toEqual(['contentions', 'cont./I/O', 'avg wait', 'wait/I/O']);
    // one unit per time column, in its head; the numbers carry none (testdata/vectors/time-column.json)
    expect(t.metrics.map((m) => m.head ?? m.label)).toEqual(['contentions', 'cont./I/O', 'avg wait (µs)', 'wait/I/O (ns)']);
    expect(t.deltaLabel).toBe('Δ wait/I/O (ns)');
    const head = t.rows[0]!;
    expect(head.name).toBe('&head->lock');
    expect(head.rwLabel).toBe('');
    const [base, other] = head.cells;
    expect(base!.numbers.map((n) => n.text)).toEqual(['400', '0.020000', '10.00', '200.000']);
    expect(base!.delta).toBe('');
    expect(other!.numbers.map((n) => n.text)).toEqual(['1,600', '0.040000', '10.00', '400.000']);
    expect(other!.delta).toBe('+200.000');
    expect(other!.ratio).toBe('×2');
    expect(other!.tone).toBe('worse');
    expect(other!.mark).toBe('changed');
  });

  it('marks classes that appear or vanish, and leaves absent cells empty', () => {
    const [, ilockW, ilockR, tasklist] = t.rows;
    expect(ilockW!.marks).toEqual(['new']);
    expect(ilockW!.rwLabel).toBe('write');
    expect(ilockW!.cells[0]!.present).toBe(false);
    expect(ilockW!.cells[0]!.numbers[0]!.title).toMatch(/not in this capture's lock_stat/);
    expect(ilockW!.cells[1]!.ratio).toBe('new');
    expect(ilockR!.rwLabel).toBe('read');
    expect(ilockR!.cells[1]!.tone).toBe('same');
    expect(ilockR!.marks).toEqual([]);
    expect(tasklist!.marks).toEqual(['gone']);
    expect(tasklist!.cells[1]!.ratio).toBe('gone');
    expect(tasklist!.cells[1]!.tone).toBe('better');
    expect(tasklist!.cells[1]!.delta).toBe('-0.500');
  });

  it('a column of times has one unit and one number of decimals, so its decimal points line up', () => {
    const decimals = (text: string) => (text.includes('.') ? text.length - text.indexOf('.') - 1 : 0);
    for (const table of [t, buildCompareTable({ ...lockComparison, per_op: false }), buildTopTable(lockTop, '#000')]) {
      const rows = 'column' in table ? table.rows.map((r) => r.numbers) : table.rows.flatMap((r) => r.cells.map((c) => c.numbers));
      table.metrics.forEach((m, i) => {
        if (!m.unit.startsWith('ns')) return;
        const texts = rows.map((n) => n[i]!.text).filter((x) => x !== '' && x !== '–' && x !== '0');
        expect(texts.length).toBeGreaterThan(0);
        expect(new Set(texts.map(decimals)).size).toBe(1); // wait columns mixed '4.00 ms' and '10.0 µs' before
        expect(texts.every((x) => /^[\d,]+(\.\d+)?$/.test(x))).toBe(true);
      });
    }
    const deltas = t.rows.flatMap((r) => r.cells.map((c) => c.delta)).filter((x) => x !== '' && x !== '0');
    expect(new Set(deltas.map((d) => decimals(d))).size).toBe(1);
  });

  it('every number says its capture, runs and unit on hover', () => {
    const title = t.rows[0]!.cells[1]!.numbers[3]!.title;
    expect(title).toContain(`6.18-ext4 (${B})`);
    expect(title).toContain('wait/I/O [ns per I/O] = 400 ns');
    expect(title).toContain('runs r000, r001');
    expect(title).toContain('40,000 I/Os (fio total_ios of runs r000, r001)');
    expect(title).toMatch(/per dump: r000: 800 contentions/);
    const delta = t.rows[0]!.cells[1]!.deltaTitle;
    expect(delta).toContain('vs baseline 6.18-xfs');
    expect(delta).toContain('Δ wait per I/O: +200 ns (×2.00)');
    expect(t.rows[0]!.cells[0]!.numbers[0]!.title).toContain('— baseline');
  });

  it('compares totals when I/Os are missing, without differences when the baseline has no lock_stat', () => {
    const totals = buildCompareTable({ ...lockComparison, per_op: false });
    expect(totals.metrics.map((m) => m.label)).toEqual(['contentions', 'total wait', 'avg wait']);
    expect(totals.metrics.map((m) => m.head ?? m.label)).toEqual(['contentions', 'total wait (ms)', 'avg wait (µs)']);
    expect(totals.deltaLabel).toBe('Δ total wait (ns)');
    const noBase = buildCompareTable({ ...lockComparison, baseline: C });
    expect(noBase.baseHasLockStat).toBe(false);
    expect(noBase.columns.every((c) => !c.isBaseline)).toBe(true);
    expect(noBase.missing[0]!.isBaseline).toBe(true);
    // nothing is 'new' against a baseline that has no lock_stat at all
    expect(noBase.rows.length).toBeGreaterThan(0);
    expect(noBase.rows.flatMap((r) => r.marks)).toEqual([]);
  });
});

describe('buildTopTable', () => {
  const t = buildTopTable(lockTop, '#4e79a7');
  it('ranks rows with per-I/O columns when the capture has I/Os', () => {
    expect(t.metrics.map((m) => m.label)).toEqual(['contentions', 'cont./I/O', 'total wait', 'avg wait', 'max wait', 'wait/I/O', 'acquisitions', 'avg hold']);
    expect(t.rows.map((r) => [r.rank, r.name, r.rwLabel])).toEqual([
      [1, '&head->lock', ''],
      [2, 'tasklist_lock', 'read'],
      [3, '(work_completion)(&(&sbi->s_err_repor (2nd of this name)', ''],
    ]);
    expect(t.metrics.map((m) => m.head ?? m.label)).toEqual(['contentions', 'cont./I/O', 'total wait (µs)', 'avg wait (µs)', 'max wait (µs)', 'wait/I/O (ns)', 'acquisitions', 'avg hold (ns)']);
    expect(t.rows[0]!.numbers.map((n) => n.text).slice(0, 3)).toEqual(['400', '0.020000', '4,000.0']);
    expect(t.rows[2]!.numbers[3]!.text).toBe('–'); // no contention: no average wait
    expect(t.rows[0]!.numbers[0]!.title).toContain(`6.18-xfs (${A})`);
  });
  it('drops per-I/O columns without I/Os', () => {
    const t2 = buildTopTable({ ...lockTop, availability: { ...lockTop.availability, ops: null } }, '#000');
    expect(t2.metrics.map((m) => m.key)).not.toContain('wait_per_op');
  });
});

describe('buildPoints', () => {
  it('splits contention and contending points, module apart', () => {
    const p = buildPoints(lockPoints, '6.18-xfs');
    expect(p.contention.map((x) => [x.count, x.symbol, x.module])).toEqual([
      ['360', 'xlog_grant_head_check+0x7e/0x2c0', 'xfs'],
      ['40', '0xffffffffc0a1b2c3', null],
    ]);
    expect(p.contending[0]!.title).toContain('held the lock while others waited');
    expect(p.contending[0]!.title).toContain('runs r000, r001');
    expect(p.contending[0]!.title).toContain('addresses as printed: 000000005a6b7c8d, 00000000aa11bb22');
  });
});

describe('reasonText', () => {
  it('drops the note prefix', () => {
    expect(reasonText(lockComparison.availability[C]!)).toMatch(/^\/proc\/lock_stat does not exist/);
  });
});

describe('rateColumn', () => {
  it('one precision per column, so the decimal points line up', () => {
    const f = rateColumn([0.035714, 0.00051, null, 0]);
    expect([0.035714, 0.00051, null, 0].map(f)).toEqual(['0.035714', '0.000510', '–', '0']);
    const g = rateColumn([0.02, 0.04]);
    expect([0.02, 0.04].map(g)).toEqual(['0.0200', '0.0400']);
    expect(rateColumn([1.5, 1234])(1234)).toBe('1,234.00');
    expect(rateColumn([null])(0.5)).toBe('0.500');
  });
});

describe('sourceShort: where a column of lock figures comes from, under its capture', () => {
  it('names the runs summed, one run, a capture-wide dump, or none', () => {
    expect(sourceShort(available(A, 1000))).toBe('2 runs summed');
    expect(sourceShort(available(A, 1000, ['r002']))).toBe('run r002');
    expect(sourceShort({ ...available(A, 1000, []), scope: 'capture' })).toBe('one capture-wide dump');
    expect(sourceShort(unavailable(B))).toBe('no lock_stat');
  });
});
