import { describe, expect, it } from 'vitest';
import type { ProbePublic } from '../api/client';
import { probeRow, probeRows } from './probes';

// runs[].probes.block of a real capture made here (loop0 under XFS, perf 6.1, 2026-11-25)
const block: ProbePublic = {
  probe: 'block',
  source: 'perf',
  tool: 'perf version 6.1.187',
  duration_s: 3.324,
  events: 741796,
  events_per_s: 223163,
  perf_cpu_s: 0.342,
  perf_cpu_pct: 10.29,
  stat_perf_cpu_s: 0.016,
  data_bytes: 89097990,
  artifact_bytes: 7146196,
  size_cap_mb: 512,
  size_cap_reached: false,
  counts: [
    { event: 'block:block_rq_complete', recorded: 370867, counted: 370926 },
    { event: 'block:block_rq_issue', recorded: 370929, counted: 370926 },
  ],
  lost: [],
};

describe('probe rows', () => {
  it('shows what a probe recorded, against the count, and its cost', () => {
    const r = probeRow('r000', block);
    expect(r).toMatchObject({ run: 'r000', flag: '--block', source: 'perf', events: '741,796', duration: '3.32 s', rate: '223.2k/s' });
    expect(r.cpu).toBe('342 ms · 10.3 %');
    expect(r.cpuHigh).toBe(false);
    expect(r.cpuTitle).toContain('10.29 % of one CPU');
    expect(r.cpuTitle).toContain('perf stat, counting the same events: 16.0 ms');
    expect([r.data, r.kept, r.cap, r.capReached]).toEqual(['85.0 MiB', '6.82 MiB', '512 MiB', false]);
    expect(r.counts.map((c) => [c.event, c.text, c.short])).toEqual([
      ['block_rq_complete', '370,867 / 370,926 (−59)', false],
      ['block_rq_issue', '370,929 / 370,926 (+3)', false],
    ]);
  });

  it('marks a recording that lost events, a high overhead and a cap that was hit', () => {
    const r = probeRow('r001', {
      ...block,
      perf_cpu_pct: 31.5,
      size_cap_reached: true,
      counts: [{ event: 'block:block_rq_complete', recorded: 8682, counted: 18142 }],
      lost: ['block:block_rq_complete'],
    });
    expect(r.cpuHigh).toBe(true);
    expect(r.capReached).toBe(true);
    expect(r.counts[0]).toMatchObject({ text: '8,682 / 18,142 (−9,460: 47.9 %)', short: true });
    expect(r.counts[0]!.title).toContain('lost events');
  });

  it('copes with the fields an old or hand-made bundle leaves out', () => {
    const r = probeRow('r000', {
      probe: 'stacks', source: null, tool: null, duration_s: null, events: 1313, events_per_s: null, perf_cpu_s: null,
      perf_cpu_pct: null, stat_perf_cpu_s: null, data_bytes: null, artifact_bytes: null, size_cap_mb: null,
      size_cap_reached: false, counts: [], lost: [],
    });
    expect([r.source, r.events, r.duration, r.rate, r.cpu, r.data, r.cap]).toEqual(['perf', '1,313', '–', '–', '–', '–', '–']);
  });

  it('a few events short of a small count are not a loss (the collector needs more than 32)', () => {
    const r = probeRow('r0', { ...block, counts: [{ event: 'sched:sched_migrate_task', recorded: 40, counted: 53 }] });
    expect(r.counts[0]).toMatchObject({ text: '40 / 53 (−13: 75.5 %)', short: false });
  });

  it('equal counts print bare', () => {
    expect(probeRow('r0', { ...block, counts: [{ event: 'sched:sched_switch', recorded: 34881, counted: 34881 }] }).counts[0]!.text).toBe('34,881 / 34,881');
  });

  it('lists the probes of every run, in run order', () => {
    const rows = probeRows([{ id: 'r000', probes: [block] }, { id: 'r001', probes: [] }, { id: 'r002', probes: [{ ...block, probe: 'sched' }] }]);
    expect(rows.map((r) => `${r.run} ${r.flag}`)).toEqual(['r000 --block', 'r002 --sched']);
  });
});
