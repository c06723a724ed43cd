// The perf probes of a capture's runs as the capture page shows them: what each recorded, against
// what perf stat counted, and what it cost (docs/bundle-format.md, runs[].probes). Pure; tests in
// probes.test.ts.
import type { ProbePublic, RunPublic } from '../api/client';
import { formatBytes, formatValue } from './format';
import { recordedShort } from './lostEvents';

export interface ProbeCountText {
  /** The tracepoint without its subsystem: 'block_rq_complete'. */
  event: string;
  text: string;
  /** The recording lost these events (the collector's `lost`, or the lost-events rule: lostEvents.ts). */
  short: boolean;
  title: string;
}

export interface ProbeRow {
  run: string;
  probe: string;
  /** The collector flag that records it: '--block'. */
  flag: string;
  source: string;
  events: string;
  duration: string;
  rate: string;
  cpu: string;
  /** The overhead is a large share of a CPU (>= 25 %): the figures may be disturbed by it. */
  cpuHigh: boolean;
  cpuTitle: string;
  data: string;
  kept: string;
  cap: string;
  capReached: boolean;
  counts: ProbeCountText[];
}

const int = (n: number) => n.toLocaleString('en-US');

function countText(c: { event: string; recorded: number | null; counted: number | null }, lost: readonly string[]): ProbeCountText {
  const event = c.event.includes(':') ? c.event.slice(c.event.indexOf(':') + 1) : c.event;
  const rec = c.recorded;
  const cnt = c.counted;
  if (rec === null || cnt === null || cnt === 0) {
    const text = rec !== null ? `${int(rec)} recorded` : cnt !== null ? `${int(cnt)} counted` : '–';
    return { event, text, short: lost.includes(c.event), title: `${c.event}: ${text}` };
  }
  const pct = (100 * rec) / cnt;
  // the collector's flag (runs[].probes.NAME.lost) is the same rule, applied when it wrote the bundle
  const short = lost.includes(c.event) || recordedShort(rec, cnt);
  return {
    event,
    text: `${int(rec)} / ${int(cnt)}${rec === cnt ? '' : ` (${rec > cnt ? '+' : '−'}${int(Math.abs(rec - cnt))}${Math.abs(pct - 100) >= 0.1 ? `: ${pct.toFixed(1)} %` : ''})`}`,
    short,
    title: `${c.event}: ${int(rec)} events in the recording, ${int(cnt)} counted by perf stat over the same run${short ? ': the recording lost events (views built from it say so)' : ''}`,
  };
}

export function probeRow(run: string, p: ProbePublic): ProbeRow {
  const pct = p.perf_cpu_pct;
  const cpu = p.perf_cpu_s === null ? '–' : `${formatValue(p.perf_cpu_s * 1e9, 'ns')}${pct === null ? '' : ` · ${pct.toFixed(1)} %`}`;
  return {
    run,
    probe: p.probe,
    flag: `--${p.probe}`,
    source: p.source ?? 'perf',
    events: p.events === null ? '–' : int(p.events),
    duration: p.duration_s === null ? '–' : formatValue(p.duration_s * 1e9, 'ns'),
    rate: p.events_per_s === null ? (p.events !== null && p.duration_s ? formatValue(p.events / p.duration_s, '/s') : '–') : formatValue(p.events_per_s, '/s'),
    cpu,
    cpuHigh: pct !== null && pct >= 25,
    cpuTitle:
      `CPU time of the perf record process over the run${pct === null ? '' : `: ${pct.toFixed(2)} % of one CPU`}. ` +
      `The overhead in user space; the kernel's cost of the tracepoints or sampling is not in it.` +
      (p.stat_perf_cpu_s === null ? '' : ` perf stat, counting the same events: ${formatValue(p.stat_perf_cpu_s * 1e9, 'ns')}.`),
    data: formatBytes(p.data_bytes),
    kept: formatBytes(p.artifact_bytes),
    cap: p.size_cap_mb === null ? '–' : formatBytes(p.size_cap_mb * 1024 * 1024),
    capReached: p.size_cap_reached,
    counts: p.counts.map((c) => countText(c, p.lost)),
  };
}

/** One row per probe of each run, in run order. */
export function probeRows(runs: readonly Pick<RunPublic, 'id' | 'probes'>[]): ProbeRow[] {
  return runs.flatMap((r) => (r.probes ?? []).map((p) => probeRow(r.id, p)));
}
