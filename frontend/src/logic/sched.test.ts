import { describe, expect, it } from 'vitest';
import { delaysB, NO_TRACE, pairsB, pingPongB, runtimeB, SCHED_A, SCHED_B, schedComparison, switchRateB, tasksB } from '../testdata/sched';
import {
  autoStepMs,
  buildSchedTable,
  COUNTED_STEP_MS,
  countedOnGrid,
  countedPlacement,
  cpuListText,
  delayAxisLabels,
  delayBinCount,
  delayBinIndex,
  delayPos,
  delayRows,
  rateStepMs,
  fmtCount,
  fmtShare,
  isWorkloadKworker,
  lossNotes,
  MAX_OTHER_LINES,
  maxValue,
  OTHER_CPU,
  pairRows,
  pingPongRows,
  ratePanels,
  rateOverlay,
  runtimeRows,
  runWindow,
  schedColumns,
  statusLossNotes,
  taskRows,
  topPairs,
  workloadText,
  type SchedSwitchRate,
} from './sched';

const color = (id: string) => (id === SCHED_A ? '#4e79a7' : id === SCHED_B ? '#f28e2b' : '#e15759');

describe('numbers and names', () => {
  it('CPU lists as taskset writes them', () => {
    expect(cpuListText([5, 0, 1, 2, 2])).toBe('0-2,5');
    expect(cpuListText([1])).toBe('1');
    expect(cpuListText([])).toBe('');
    expect(workloadText('fio', [1])).toBe('fio on CPU 1');
    expect(workloadText('fio', [0, 1, 2, 3])).toBe('fio on CPUs 0-3');
    expect(workloadText(null, [])).toMatch(/not pinned/);
  });
  it('counts and shares', () => {
    expect(fmtCount(53387)).toBe('53,387');
    expect(fmtCount(null)).toBe('–');
    expect(fmtShare(0.93955)).toBe('94.0 %');
    expect(fmtShare(0.0001)).toBe('<0.1 %');
  });
  it('the storm pair is the workload and a kworker, either way round', () => {
    const fio = { pid: 1, comm: 'fio', group: 'fio', workload: true };
    const kw = { pid: 2, comm: 'kworker/1:1H', group: 'kworker/*', workload: false };
    const sh = { pid: 3, comm: 'sh', group: 'sh', workload: false };
    expect(isWorkloadKworker(fio, kw)).toBe(true);
    expect(isWorkloadKworker(kw, fio)).toBe(true);
    expect(isWorkloadKworker(fio, sh)).toBe(false);
  });
});

describe('the comparison table', () => {
  const t = buildSchedTable(schedComparison);
  it('baseline first, a capture without a trace kept with its reason', () => {
    expect(t.columns.map((c) => c.id)).toEqual([SCHED_A, SCHED_B, NO_TRACE]);
    expect(t.columns.map((c) => c.hasTrace)).toEqual([true, true, false]);
    expect(t.columns[0]!.workload).toBe('fio on CPU 1');
    expect(t.columns[2]!.status?.warnings[0]).toMatch(/no scheduler trace/);
  });
  it('rows in the fio table shape: means with units, ratios, tones', () => {
    const row = t.rows.find((r) => r.metric === 'switches_workload')!;
    expect(row.unit).toBe('/s');
    expect(row.cells[0]!.mean).toBe('14.19k/s');
    expect(row.cells[1]!.mean).toBe('24.18k/s');
    expect(row.cells[1]!.ratio).toBe('+70.5 %');
    expect(row.cells[1]!.tone).toBe('same'); // the w1000 runs range from 4.3k to 37k: they overlap the baseline's
    expect(row.cells[2]!.mean).toBe('–');
    expect(row.cells[2]!.title).toMatch(/no scheduler trace/);
    // every number says capture, runs, unit and the workload's CPU
    expect(row.cells[1]!.title).toContain('6.18.44-fc-v669-sched-pinned-w1000');
    expect(row.cells[1]!.title).toContain('[/s]');
    expect(row.cells[1]!.title).toContain('runs: r000, r001, r002');
    expect(row.cells[1]!.title).toContain('workload: fio on CPU 1');
  });
  it('a metric selection limits and orders the rows', () => {
    expect(buildSchedTable(schedComparison, ['pingpong_per_s', 'nope', 'switches_all']).rows.map((r) => r.metric)).toEqual(['pingpong_per_s', 'switches_all']);
  });
  it('loss notes from the statuses name the runs', () => {
    const lossy = { ...schedComparison, status: { ...schedComparison.status, [SCHED_B]: { ...schedComparison.status[SCHED_B]!, events_lost: true, warnings: ['run r001: sched:sched_waking: recorded 10 of 100'] } } };
    const notes = statusLossNotes(schedColumns(lossy));
    expect(notes).toHaveLength(1);
    expect(notes[0]!.runs).toEqual(['r001']);
    expect(buildSchedTable(lossy).rows[0]!.cells[1]!.title).toMatch(/lost scheduler events/);
  });
});

describe('loss notes of a view', () => {
  it('only captures that lost events, with the runs that did', () => {
    expect(lossNotes([switchRateB], color)).toEqual([]);
    const lossy: SchedSwitchRate = {
      ...switchRateB,
      events_lost: true,
      warnings: ['run r001: sched:sched_waking: recorded 1,500 of 98,000'],
      runs: switchRateB.runs.map((r) => (r.id === 'r001' ? { ...r, events_lost: true } : r)),
    };
    const n = lossNotes([lossy], color);
    expect(n).toEqual([{ captureId: SCHED_B, label: switchRateB.label, color: '#f28e2b', runs: ['r001'], warnings: lossy.warnings }]);
  });
});

describe('switch rate over time', () => {
  it('picks an interval that gives at most 150 points per run', () => {
    expect(autoStepMs([1.37, 1.54])).toBe(100);
    expect(autoStepMs([60])).toBe(500);
    expect(autoStepMs([600])).toBe(5000);
    expect(autoStepMs([])).toBe(100);
  });
  it('small multiples: a panel per run, the workload CPU in the capture colour, perf stat dotted', () => {
    const panels = ratePanels([switchRateB], color, 'switches', true);
    expect(panels.map((p) => p.key)).toEqual([`${SCHED_B}:r000`, `${SCHED_B}:r001`]);
    const p = panels[0]!;
    expect(p.grid.interval).toBe(100e6);
    expect(p.grid.t.slice(0, 3)).toEqual([0, 100e6, 200e6]);
    expect(p.lines.map((l) => [l.key, l.color, l.dash])).toEqual([
      ['cpu0', OTHER_CPU, ''],
      ['cpu1', '#f28e2b', ''],
      ['stat0', OTHER_CPU, '1 3'],
      ['stat1', '#f28e2b', '1 3'],
    ]);
    expect(p.lines[1]!.name).toBe('CPU 1 (workload)');
    expect(p.lines[1]!.values.length).toBe(p.grid.t.length);
    // perf stat's first interval (0-1.0 s) holds the buckets whose middle is before 1.0 s
    const stat = p.lines[3]!.values;
    expect(stat[0]).toBeCloseTo(11287.37, 1);
    expect(stat[9]).toBeCloseTo(11287.37, 1);
    expect(stat[10]).toBeCloseTo(45523.66, 1);
    expect(ratePanels([switchRateB], color, 'involuntary', true)[0]!.lines.map((l) => l.key)).toEqual(['cpu0', 'cpu1']);
    expect(maxValue(p.lines)).toBeGreaterThan(40000);
  });
  it('many CPUs outside the workload are drawn as their mean and max', () => {
    const run = switchRateB.runs[0]!;
    const base = switchRateB.series.find((s) => s.run_id === run.id && s.cpu === 0)!;
    const many: SchedSwitchRate = {
      ...switchRateB,
      runs: [run],
      counted: [],
      series: [...Array.from({ length: MAX_OTHER_LINES + 2 }, (_, i) => ({ ...base, cpu: i + 2 })), switchRateB.series.find((s) => s.run_id === run.id && s.cpu === 1)!],
    };
    const lines = ratePanels([many], color, 'switches', true)[0]!.lines;
    expect(lines.map((l) => l.key)).toEqual(['other-max', 'other-mean', 'cpu1']);
    expect(lines[0]!.name).toBe('CPUs 2-9, max');
  });
  it('overlay: one line per capture and run, dashed by run, the grid of the longest run', () => {
    const o = rateOverlay([switchRateB], color, 'switches');
    expect(o.runs).toEqual(['r000', 'r001']);
    expect(o.lines.map((l) => [l.name, l.dash])).toEqual([
      [`${switchRateB.label} · r000`, ''],
      [`${switchRateB.label} · r001`, '6 3'],
    ]);
    expect(o.lines[0]!.detail).toMatch(/^workload CPU 1/);
    const longest = Math.max(...switchRateB.series.map((s) => s.t_s.length));
    expect(o.grid.t.length).toBe(longest);
    expect(o.lines.every((l) => l.values.length === longest)).toBe(true);
  });
  it("under the timeline selection each run's chart is cut at the selection on its own clock, not the brushed run's", () => {
    // r000's trace starts 12.5 ms after its run's start, r001's 139.4 ms before it (perf started first)
    const offsets: Record<string, number> = { r000: 12_500_000, r001: -139_400_000 };
    const rate: SchedSwitchRate = { ...switchRateB, runs: switchRateB.runs.map((r) => ({ ...r, offset_ns: offsets[r.id] })) };
    const sel: [number, number] = [500_000_000, 1_000_000_000]; // 0.5-1.0 s since each run's start
    const panels = ratePanels([rate], color, 'switches', false, sel);
    expect(panels.map((p) => [p.runId, p.window])).toEqual([
      ['r000', [487_500_000, 987_500_000]],
      ['r001', [639_400_000, 1_139_400_000]],
    ]);
    expect(ratePanels([rate], color, 'switches', false).every((p) => p.window === null)).toBe(true);
    // the overlay: each run's line blank outside its own window, the chart from the earliest to the latest
    const o = rateOverlay([rate], color, 'switches', sel);
    expect(o.window).toEqual([487_500_000, 1_139_400_000]);
    const drawn = (i: number) => o.grid.t.filter((_, k) => o.lines[i]!.values[k] !== null).map((t) => t / 1e6);
    expect(drawn(0)).toEqual([400, 500, 600, 700, 800, 900]); // the 100 ms buckets that overlap [487.5, 987.5) ms
    expect(drawn(1)).toEqual([600, 700, 800, 900, 1000, 1100]); // [639.4, 1139.4) ms
    expect(rateOverlay([rate], color, 'switches').window).toBeNull();
    // the same rule as the views' clock=run and the exports (testdata/vectors/run-span.json): a run without an offset is not moved
    expect(runWindow(sel, { offset_ns: null })).toEqual(sel);
  });
  it("draws the trace at perf stat's interval at least while its counted lines are shown (lockstat-6.12: they lay flat under 200 ms peaks)", () => {
    // the lab pair's runs: 8.2-24.6 s traced; auto gives 200 ms, perf stat counts per 1 s
    expect(rateStepMs([10.9, 8.2, 24.6, 12.3], false)).toBe(200);
    expect(rateStepMs([10.9, 8.2, 24.6, 12.3], true)).toBe(COUNTED_STEP_MS);
    expect(COUNTED_STEP_MS).toBe(1000);
    // a long run's auto interval is already longer: kept
    expect(rateStepMs([600], true)).toBe(5000);
  });
  it('counted intervals on the trace grid', () => {
    expect(countedOnGrid({ t_s: [1, 2], values: [10, 20] }, { t: [0, 0.5e9, 1e9, 1.5e9, 2e9], interval: 0.5e9 })).toEqual([10, 10, 20, 20, null]);
    // perf stat started 0.6 s after the trace's first event: nothing of it before then
    expect(countedOnGrid({ start_s: 0.6, t_s: [1.6, 2.6], values: [10, 20] }, { t: [0, 0.5e9, 1e9, 1.5e9, 2e9], interval: 0.5e9 })).toEqual([null, 10, 10, 20, 20]);
    // 11.3 s before it (the lab's emulated CPUs): its intervals 11 (-0.3 to 0.7 s) and 12 hold the trace's first second
    const early = { start_s: -11.3, t_s: Array.from({ length: 13 }, (_, k) => -10.3 + k), values: Array.from({ length: 13 }, (_, k) => k) };
    expect(countedOnGrid(early, { t: [0, 0.5e9], interval: 0.5e9 })).toEqual([11, 12]);
  });
  it("says how perf stat's lines were placed on the trace's axis", () => {
    const panel = (alignment: 'clock' | 'wall' | 'unknown', startS = 0, zone: 'host' | 'utc' | null = null) => {
      const a: SchedSwitchRate = { ...switchRateB, counted: switchRateB.counted.map((c) => ({ ...c, alignment, alignment_note: `note ${alignment}`, start_s: startS, wall_zone: zone })) };
      return ratePanels([a], color, 'switches', true)[0]!;
    };
    expect(panel('clock').counted).toEqual({ alignment: 'clock', note: 'note clock', startS: 0, zone: null });
    expect(countedPlacement(panel('clock').counted)).toBeNull();
    expect(countedPlacement(panel('wall', -11.32).counted)).toMatch(/^perf stat placed by wall-clock start times, to a second at best \(its start -11\.3 s/);
    expect(countedPlacement(panel('unknown').counted)).toMatch(/unknown: its dotted lines are drawn as if it started with the trace's first event, and may be shifted by seconds$/);
    // perf's '# started on' is the host's local time: the line says when it was read as UTC (no offset in the bundle)
    expect(countedPlacement(panel('wall', -11.32, 'utc').counted)).toMatch(/; perf's '# started on' read as UTC, the bundle not recording the host's UTC offset$/);
    expect(countedPlacement(panel('wall', -11.32, 'host').counted)).toMatch(/put on UTC by the host's recorded offset$/);
    expect(countedPlacement(panel('unknown', 0, 'utc').counted)).toMatch(/read as UTC, the bundle not recording the host's UTC offset, did not fit the run's start\)$/);
    expect(ratePanels([switchRateB], color, 'switches', false)[0]!.counted).toBeNull();
  });
});

describe('tables', () => {
  it('tasks: involuntary vs voluntary, states, with capture, run, CPU in every hover', () => {
    const rows = taskRows(tasksB);
    expect(rows).toHaveLength(tasksB.rows.length);
    const r = rows[0]!;
    expect(r.nums.involuntary.title).toContain(`run ${r.runId} · CPU ${r.cpu}`);
    expect(r.nums.involuntary.title).toContain(tasksB.label);
    expect(r.nums.involuntary.title).toMatch(/preempted/);
    expect(r.states).toMatch(/\d/);
  });
  it('pairs: prev -> next with rate and share', () => {
    const r = pairRows(pairsB)[0]!;
    expect(r.nums.perS.text).toMatch(/\/s$/);
    expect(r.nums.share.text).toMatch(/ %$/);
    expect(r.nums.switches.title).toContain('→');
  });
  it('ping-pong: the top pair flagged, rate and share with units, the workload CPU marked', () => {
    const rows = pingPongRows(pingPongB);
    expect(rows[0]!.top).toBe(true);
    expect(rows.slice(1).every((r) => !r.top)).toBe(true);
    expect(rows[0]!.a.comm).toBe('sh');
    expect(rows[0]!.b.comm).toBe('fio');
    expect(rows[0]!.nums.perS.text).toBe('34.75k/s');
    expect(rows[0]!.nums.share.text).toBe('94.0 %');
    expect(rows[0]!.workloadCpu).toBe(true);
    expect(rows[0]!.nums.perS.title).toContain('run r000 · CPU 1 (workload)');
    expect(rows.slice(0, 2).every((r) => !r.storm)).toBe(true); // here the busy loop, not a kworker, ping-pongs with fio most
    const top = topPairs(rows, 2);
    const storm = rows.find((r) => r.storm);
    expect(top.map((r) => r.rank)).toEqual(storm ? [1, 2, storm.rank] : [1, 2]);
  });
  it('run time: CPUs used and share of the workload CPUs', () => {
    const r = runtimeRows(runtimeB)[0]!;
    expect(r.task.comm).toBe('sh');
    expect(r.nums.cpusUsed.text).toBe('0.709 CPUs');
    expect(r.nums.share.text).toBe('70.9 %');
    expect(r.nums.share.title).toContain('CPU 1 (workload)');
  });
  it('delays: shared log2 bins, percentile marks, hover per bin', () => {
    expect(delayBinIndex(0)).toBe(0);
    expect(delayBinIndex(1000)).toBe(1);
    expect(delayBinIndex(4000)).toBe(3);
    expect(delayPos(1000)).toBe(1);
    expect(delayPos(4000)).toBe(3);
    expect(delayPos(500)).toBe(0.5);
    const n = delayBinCount([delaysB]);
    const rows = delayRows(delaysB, n);
    const r = rows[0]!;
    expect(r.bins).toHaveLength(n);
    expect(r.bins.reduce((a, b) => a + b, 0)).toBe(delaysB.rows[0]!.histogram.reduce((a, b) => a + b.count, 0));
    expect(r.marks.map((m) => m.p)).toEqual(['p50', 'p90', 'p99']);
    expect(r.binTitles[2]).toMatch(/delays in \(2 µs, 4 µs\]: /);
    expect(r.binTitles[3]).toMatch(/24,117 delays in \(4 µs, 8 µs\]: 41.4 % of 58,273/);
    expect(r.nums.p99.text).toMatch(/µs|ms/);
    expect(delayAxisLabels(21, 280).map((l) => l.label)).toEqual(['1 µs', '32 µs', '1 ms', '33 ms']);
    expect(delayAxisLabels(31, 200).map((l) => l.label)).toEqual(['1 µs', '1 ms', '1 s']);
  });
});
