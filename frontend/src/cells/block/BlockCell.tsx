// The block layer cell: device queue depth, IOPS, throughput and latency over time for every
// capture of the notebook on one time axis (ns since each run's start), a latency histogram and the
// request sizes of the visible window, and optionally the sectors over time. Brush any time chart
// to zoom, drag its time axis to pan, double click or Esc to go back; the range is in the URL.
// Shaping lives in logic/blockSeries.ts, requests in logic/blockPlan.ts, axes in logic/blockFormat.ts.
import { useMemo, useState, type KeyboardEvent, type ReactNode } from 'react';
import type { ApiError } from '../../api/client';
import { useCaptureList } from '../../api/queries';
import { EmptyState, MissingLine } from '../../components/EmptyState';
import { ErrorBox } from '../../components/ErrorBox';
import { ChartFrame, type LostNote, type StyleKey } from '../../charts/ChartFrame';
import { LatencyHistogram } from '../../charts/LatencyHistogram';
import { SectorScatter } from '../../charts/SectorScatter';
import { SizeBars } from '../../charts/SizeBars';
import { TimeSeriesChart, type NamedLine } from '../../charts/TimeSeriesChart';
import type { TimeInteraction } from '../../charts/timeBrush';
import { TIME_MARGIN } from '../../charts/timeSeries';
import { useDebounced, useWidth } from '../../charts/useWidth';
import { formatBucket, formatCount, formatRange, formatInstant, formatLatency, formatQuantity, formatSpan, latencyAxis, valueAxis, type Axis, type ValueUnit } from '../../logic/blockFormat';
import { captureColor } from '../../logic/colors';
import { fullRange, isFull, LATENCY_MAX_BUCKETS, panRange, planBuckets, tidyRange, zoomRange, type TimeRange } from '../../logic/blockPlan';
import {
  gatherWarnings,
  LATENCY_MEASURES,
  lastEvents,
  lostIn,
  maxOf, robustTop, ROBUST_Q,
  minPositive,
  FIO_DASH,
  fioKeyLabel,
  opCounts,
  opDash,
  seriesMetas,
  shapeDepth,
  shapeFioIops,
  shapeLatency,
  shapeLatencyHistogram,
  shapeRates,
  shapeSizes,
  sizeSummary,
  sourceWords,
  type BlockRun,
  type BlockScatter,
  type LineSeries,
  type SeriesMeta,
  type SeriesWarnings,
  type TimeGrid,
} from '../../logic/blockSeries';
import { TimeApplied } from '../timeline/TimeApplied';
import type { CellProps, NotebookContext } from '../types';
import { useBlockRuns, useIops, useKept, useLatency, useLatencyHistogram, useQueueDepth, useScatter, useSizes, type Kept, type ViewParams } from './queries';
import { CHART_NAMES, CHARTS, type BlockChart, type BlockState } from './state';
import './block.css';

// The cell's last width: the notebook remounts the cell when its state changes (a zoom), and the
// first render should plan its requests for the real width, not a guess.
let lastWidth = 960;

/** Points per series of the scatter at most (the server samples beyond). */
const SCATTER_POINTS = 20_000;

export function BlockCell({ ctx, state, setState }: CellProps<BlockState>) {
  const runsQ = useBlockRuns(ctx.captures);
  if (runsQ.loading) return <p className="muted">Looking for block layer data…</p>;
  if (runsQ.error) return <ErrorBox error={runsQ.error} title="block layer runs" />;
  const runs = runsQ.data ?? [];
  if (runs.length === 0) return <NoBlockData ctx={ctx} />;
  // the notebook's shared time selection (a timeline cell's brush) is the window shown, every run from its start
  const t = ctx.time;
  return (
    <>
      {t && (
        <TimeApplied time={t} onClear={ctx.clearTime}>
          shown here as the window of every run (time since each run's start); zooming here changes this cell's own range, used again once the selection is cleared
        </TimeApplied>
      )}
      <BlockCharts captures={ctx.captures} runs={runs} state={t ? { ...state, range: { from: t.from, to: t.to } } : state} setState={setState} />
    </>
  );
}

/** Some of the captures have no block data (the others are drawn): which. */
function BlockMissing({ some }: { some: { label: string; color: string }[] }) {
  return (
    <MissingLine data="block" testId="block-missing" missing={some} consequence={some.length === 1 ? 'it is not drawn' : 'they are not drawn'} />
  );
}

function NoBlockData({ ctx }: { ctx: NotebookContext }) {
  return (
    <EmptyState data="block" testId="block-empty" captures={ctx.captures} baseline={ctx.baseline} withCapture={ctx.withCapture}>
      <p>
        Queue depth, IOPS and latency over time come from the block layer's events (issue and completion of every request), which the collector records only when asked
        to, for one device: <code>DEV</code> is the device under the file system fio uses (<code>nvme0n1</code>, <code>/dev/vda</code>, <code>loop0</code> or{' '}
        <code>259:0</code>; a partition records its whole disk).
      </p>
      <pre>iolens-collect run --label NAME --block DEV --fio JOBFILE -o NAME.iolens.tar.gz</pre>
      <p>
        As root, the collector uses blktrace where the kernel allows it, and perf's <code>block:block_rq_*</code> tracepoints otherwise, and counts the same events with perf
        stat so that a recording that lost events says so. A capture made without <code>--block</code> cannot be given block data afterwards: capture it again. See{' '}
        <code>docs/block.md</code>.
      </p>
    </EmptyState>
  );
}

interface ChartsProps {
  captures: string[];
  runs: BlockRun[];
  state: BlockState;
  setState: (s: BlockState) => void;
}

function BlockCharts({ captures, runs, state, setState }: ChartsProps) {
  const withBlock = captures.filter((c) => runs.some((r) => r.capture_id === c));
  const seriesText = withBlock.join(',');
  const params: ViewParams = useMemo(() => ({ series: seriesText, device: state.dev }), [seriesText, state.dev]);
  const list = useCaptureList();
  const full = useMemo(() => fullRange(runs.map((r) => r.last_ns)), [runs]);
  const range: TimeRange = clipRange(state.range, full);
  const domain: [number, number] = [range.from, range.to];
  const last = useMemo(() => lastEvents(runs), [runs]);
  const [boxRef, width] = useWidth<HTMLDivElement>(lastWidth);
  lastWidth = width;
  const chartWidth = Math.max(320, width);
  const plotPx = useDebounced(chartWidth - TIME_MARGIN.left - TIME_MARGIN.right, 250);
  const plan = planBuckets(range, plotPx);
  const latPlan = planBuckets(range, plotPx, LATENCY_MAX_BUCKETS);
  const on = (c: BlockChart) => state.charts.includes(c);
  const [hoverT, setHoverT] = useState<number | null>(null);
  // rate charts: a clipped scale (90th percentile) when a spike would flatten the rest; in the URL
  const fullScale = state.scale === 'full';
  const setFullScale = (full: boolean) => setState({ ...state, scale: full ? 'full' : 'clip' });

  const slot = (v: string) => `${v}|${params.series}|${params.device ?? ''}`;
  const qd = useKept(slot('qd'), useQueueDepth(on('qd') ? params : null, plan));
  const rates = useKept(slot('iops'), useIops(params, plan));
  const lat = useKept(slot(`lat/${state.op}`), useLatency(on('lat') ? params : null, latPlan, state.op));
  const hist = useKept(slot('hist'), useLatencyHistogram(on('hist') ? params : null, plan));
  const sizes = useKept(slot('sizes'), useSizes(on('size') ? params : null, plan));
  const scatter = useKept(slot('scatter'), useScatter(on('scatter') ? params : null, plan, Math.max(1000, Math.floor(SCATTER_POINTS / Math.max(1, runs.length)))));

  const set = (patch: Partial<BlockState>) => setState({ ...state, ...patch });
  const zoomTo = (r: TimeRange | null) => {
    if (r === null) return set({ range: null });
    const t = tidyRange(r, full);
    set({ range: isFull(t, full) ? null : t });
  };
  const it = { hoverT, onHover: setHoverT, onZoom: (a: number, b: number) => zoomTo({ from: a, to: b }), onReset: () => zoomTo(null), brushLabel: formatRange };
  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === 'Escape' && state.range) {
      e.preventDefault();
      e.stopPropagation();
      zoomTo(null);
    } else if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
      e.preventDefault();
      zoomTo(panRange(range, full, e.key === 'ArrowLeft' ? -0.25 : 0.25));
    } else if (e.key === '-') {
      zoomTo(zoomRange(range, full, 2));
    } else if (e.key === '+' || e.key === '=') {
      zoomTo(zoomRange(range, full, 0.5));
    }
  };

  const warnings = gatherWarnings([rates.data, qd.data, lat.data, hist.data, sizes.data, scatter.data], captures);
  const metas: SeriesMeta[] = rates.data ? seriesMetas(rates.data.series, captures) : [];
  const ops = rates.data ? opCounts(rates.data) : [];
  const devices = [...new Set(runs.flatMap((r) => r.devices.map((d) => String(d.dev))))];
  const missing = captures
    .map((c, i) => ({ c, i }))
    .filter(({ c }) => !withBlock.includes(c))
    .map(({ c, i }) => ({ label: list.data?.find((x) => x.id === c)?.label ?? c, color: captureColor(i) }));
  const opWord = state.op === 'all' ? 'all operations' : `${state.op}s only`;

  // fio's own IOPS log (--fio-logs), drawn over the device's IOPS when it is on the run's clock
  const fio = rates.data ? shapeFioIops(rates.data, captures, state.op) : { lines: [], notes: [], windows: [] };
  const split = state.split && state.op === 'all';
  const rateWord = split ? 'by operation' : opWord;
  // the dash of each operation, when IOPS and throughput are drawn per operation
  const splitKeys = (metric: 'iops' | 'bytes_per_s'): StyleKey[] => (split && rates.data ? opKeys(shapeRates(rates.data, captures, last, { metric, op: 'all', split: true }).ops) : []);
  const timeSections: TimeSection[] = [
    {
      id: 'qd',
      title: 'Device queue depth',
      unit: 'I/Os in flight',
      sub: (w) => `time-weighted mean of requests issued and not completed, per ${w} · all operations`,
      answer: answer(qd, (d) => shapeDepth(d, captures, last)),
      unitOf: 'depth',
      height: 150,
    },
    {
      id: 'iops',
      title: 'IOPS',
      unit: 'I/Os per second',
      sub: (w) => `I/Os completed per second, per ${w} · ${rateWord}`,
      answer: answer(rates, (d) => {
        const r = shapeRates(d, captures, last, { metric: 'iops', op: state.op, split: state.split });
        return { grid: r.grid, lines: [...r.lines, ...shapeFioIops(d, captures, state.op).lines] };
      }),
      unitOf: 'IO/s',
      robust: true,
      keys: [
        ...splitKeys('iops'),
        ...(fio.lines.length
          ? [{ label: fioKeyLabel(fio.windows), dash: FIO_DASH, title: "fio's own IOPS log (write_iops_log, iolens-collect --fio-logs), on the run's clock: what fio counted, against what reached the device. Device I/Os per fio I/O below 1: the block layer merged fio's I/Os; above 1: it split them." }]
          : []),
      ],
      after: fio.notes.length > 0 && (
        <p className="fio-note muted small" data-testid="fio-note">
          {fio.notes.map((n) => (
            <span key={n.key}>
              <i className="swatch" style={{ background: n.color }} />
              {n.label}: {n.note}.{' '}
            </span>
          ))}
        </p>
      ),
      height: 140,
    },
    {
      id: 'bw',
      title: 'Throughput',
      unitFromAxis: true,
      sub: (w) => `bytes completed per second, per ${w} · ${rateWord}`,
      answer: answer(rates, (d) => shapeRates(d, captures, last, { metric: 'bytes_per_s', op: state.op, split: state.split })),
      unitOf: 'B/s',
      robust: true,
      keys: splitKeys('bytes_per_s'),
      height: 140,
    },
    {
      id: 'lat',
      title: 'Completion latency',
      unit: 'log scale',
      sub: (w) => `issue → complete of the I/Os completed in each ${w} · ${opWord}`,
      answer: answer(lat, (d) => shapeLatency(d, captures, last, state.lat)),
      y: (ls) => latencyAxis(minPositive(ls), maxOf(ls)),
      unitOf: 'ns',
      controls: <LatencyPicker state={state} set={set} />,
      height: 180,
      foot: 'p50/p90/p99/p99.9 from 8 log bins per doubling (within ~4 %); mean and max exact',
    },
  ];

  const inWindow = windowWords(range, full, plan.interval_ns);
  // the latency histogram and the request sizes side by side when both are on, each half the width
  // (one above the other on a narrow screen)
  const distWidth = on('hist') && on('size') && chartWidth >= 640 ? Math.floor((chartWidth - 16) / 2) : chartWidth;
  const forOp = state.op !== 'all' ? ` for ${state.op}` : '';
  const distSections: DistSection[] = [
    {
      id: 'hist',
      title: 'Latency histogram',
      sub: `${inWindow} · ${opWord}`,
      answer: answer(hist, (d) => {
        const hs = shapeLatencyHistogram(d, captures, state.op);
        return {
          series: hs,
          chart: <LatencyHistogram width={distWidth} scope={inWindow} series={hs.map(drawnAs)} />,
          summary: (
            <>
              {hs.map((h) => (
                <span key={h.key} title={`${h.meta.label}: ${formatCount(h.total)} I/Os completed in the window; percentiles from the histogram bins`}>
                  <i className="swatch" style={{ background: h.meta.color }} />
                  {h.meta.label}: p50 <b>{formatLatency(h.p50)}</b> · p99 <b>{formatLatency(h.p99)}</b> <span className="muted">({formatCount(h.total)} I/Os)</span>
                </span>
              ))}
              <span className="muted dist-marks">▽ p50 ▼ p99</span>
            </>
          ),
        };
      }),
      none: `No completed I/O in this window${forOp}.`,
    },
    {
      id: 'size',
      title: 'Request sizes',
      sub: `I/Os issued in the window · ${opWord}`,
      answer: answer(sizes, (d) => {
        const ss = shapeSizes(d, captures, state.op);
        return {
          series: ss,
          chart: <SizeBars width={distWidth} scope={inWindow.replace('completed', 'issued')} series={ss.map(drawnAs)} />,
          summary: ss.map((s) => {
            const w = sizeSummary(s);
            return (
              <span key={s.key} title={w ? `${s.meta.label}: ${w.share === 'all' ? 'every I/O' : `${w.share} of the I/Os`} ${w.mode}; mean size ${w.mean} (bytes / I/Os issued in the window)` : undefined}>
                <i className="swatch" style={{ background: s.meta.color }} />
                {s.meta.label}:{' '}
                {w ? (
                  <>
                    {w.share === 'all' ? 'all ' : ''}
                    <b>{w.mode}</b>
                    {w.share !== 'all' && <> {w.share}</>} · mean {w.mean}
                  </>
                ) : (
                  '–'
                )}{' '}
                <span className="muted">({formatCount(s.total)} I/Os)</span>
              </span>
            );
          }),
        };
      }),
      none: `No I/O issued in this window${forOp}.`,
    },
  ];
  const dists = distSections.filter((d) => on(d.id));

  return (
    <div className="block-cell" ref={boxRef} tabIndex={-1} onKeyDown={onKey} onPointerDown={(e) => {
        // a click in a chart focuses the cell, for its keys (Esc, arrows); controls keep their focus
        if (e.target instanceof SVGElement) e.currentTarget.focus({ preventScroll: true });
      }}>
      <Toolbar state={state} set={set} ops={ops} devices={devices} />
      <div className="block-legend" data-testid="block-legend">
        {(metas.length ? metas : []).map((m) => {
          const run = runs.find((r) => r.capture_id === m.captureId && r.run_id === m.runId);
          return (
            <span key={m.key} className="legend-item" title={`${m.label}\ncapture ${m.captureId}, run ${m.runId}\ndevice ${m.device ?? 'all devices'}\n${run ? `${formatCount(run.matched)} I/Os with issue and completion, from ${run.kind} (${run.path})` : ''}`}>
              <i className="swatch" style={{ background: m.color }} />
              <span className="legend-label">{m.label}</span>
              <span className="muted">
                {m.label.endsWith(` / ${m.runId}`) ? '' : `${m.runId} · `}dev {m.device ?? 'all'}
                {run ? ` · ${formatCount(run.matched)} I/Os` : ''}
              </span>
              {m.eventsLost && <span className="lost-badge">events lost</span>}
            </span>
          );
        })}
        <span className="spacer" />
        <ZoomBar range={range} full={full} interval={plan.interval_ns} zoomTo={zoomTo} />
      </div>
      {missing.length > 0 && <BlockMissing some={missing} />}
      {warnings.lost.length > 0 && (
        <div className="block-lost" role="alert" data-testid="block-lost">
          <strong>⚠ Lost block events:</strong> {warnings.lost.map((w) => w.label).join(', ')}. The recording kept fewer events than happened, so I/O counts, IOPS and
          queue depth of {warnings.lost.length === 1 ? 'this capture are' : 'these captures are'} too low and latency is computed from the I/Os that were kept.
          <ul>
            <WarningItems of={warnings.lost} />
          </ul>
        </div>
      )}

      {timeSections
        .filter((t) => on(t.id))
        .map((t) => (
          <TimeChart key={t.id} s={t} width={chartWidth} domain={domain} it={it} fullScale={fullScale} setFullScale={setFullScale} />
        ))}
      {dists.length > 0 && (
        <div className="block-dists">
          {dists.map((d) => (
            <DistChart key={d.id} s={d} width={distWidth} />
          ))}
        </div>
      )}
      {on('scatter') && (
        <ScatterChart q={scatter} captures={captures} width={chartWidth} domain={domain} it={it} op={state.op} />
      )}
      {warnings.all.some((w) => w.warnings.length > 0) && (
        <details className="block-notes">
          <summary>
            What ingest noticed <span className="muted">({warnings.all.reduce((a, w) => a + w.warnings.length, 0)})</span>
          </summary>
          <ul className="notes">
            <WarningItems of={warnings.all} />
          </ul>
          <p className="muted small">
            A few unmatched events near the start and end of a trace are normal (I/Os in flight when it started or stopped). See docs/block.md, "Lost events".
          </p>
        </details>
      )}
      <p className="block-help muted small">
        Drag across a chart to zoom in, drag its time axis (or Shift-drag) to pan, double click or <kbd>Esc</kbd> to see the whole run; <kbd>←</kbd> <kbd>→</kbd> pan,{' '}
        <kbd>-</kbd> <kbd>+</kbd> zoom. Time is since each run's start, so runs overlay from their starts. The server sums the I/Os into the intervals shown.
      </p>
    </div>
  );
}


/** What ingest noticed, one item per warning, in its capture's colour. */
function WarningItems({ of }: { of: readonly SeriesWarnings[] }) {
  return of.map((w) =>
    w.warnings.map((t, i) => (
      <li key={`${w.key}${i}`}>
        <i className="swatch" style={{ background: w.color }} />
        {w.label}: {t}
      </li>
    )),
  );
}

function clipRange(r: TimeRange | null, full: TimeRange): TimeRange {
  if (!r) return full;
  const from = Math.max(full.from, r.from);
  const to = Math.min(full.to, r.to);
  return to > from ? { from, to } : full;
}

function detailOf(m: SeriesMeta): string {
  return `run ${m.runId} · device ${m.device ?? 'all'} · ${sourceWords(m.source)}`;
}

function lostNotes(series: readonly { meta: SeriesMeta }[]): LostNote[] {
  return lostIn(series).map((m) => ({ key: m.key, label: m.label, color: m.color }));
}

function opKeys(ops: readonly string[]): StyleKey[] {
  return ops.map((o) => ({ label: o, dash: opDash(o) }));
}

function windowWords(r: TimeRange, full: TimeRange, resolution: number): string {
  return isFull(r, full) ? 'I/Os completed in the whole run' : `I/Os completed in ${formatInstant(r.from, resolution)} – ${formatInstant(r.to, resolution)}`;
}

/** A query's answer bound to what draws it (`draw`, once there is an answer), so that charts of different answers go in one list. */
interface Answer<S> {
  error: ApiError | undefined;
  stale: boolean;
  draw: (() => S) | null;
}

function answer<D, S>(q: Kept<D>, shape: (d: D) => S): Answer<S> {
  const d = q.data;
  return { error: q.error, stale: q.stale, draw: d ? () => shape(d) : null };
}

/** One chart on the time axis: what sets it apart; the cell's time charts share width, range, hover and zoom. */
interface TimeSection {
  /** The chart it is in the toolbar and the URL; its test id is chart-ID. */
  id: BlockChart;
  title: string;
  unit?: string;
  /** Take the unit from the y axis (MiB/s). */
  unitFromAxis?: boolean;
  sub: (interval: string) => string;
  answer: Answer<{ grid: TimeGrid; lines: LineSeries[] }>;
  /** The y axis (absent: linear from 0 to the largest value, in unitOf). */
  y?: (ls: LineSeries[]) => Axis;
  unitOf: ValueUnit;
  keys?: StyleKey[];
  controls?: ReactNode;
  /** A rate: a spike more than twice the 90th percentile does not set the scale (unless full scale is asked for). */
  robust?: boolean;
  /** Below the chart (notes about what it does not draw). */
  after?: ReactNode;
  height: number;
  foot?: ReactNode;
}

/** A chart's frame while its first answer loads. */
function Loading({ title, unit, testId, height }: { title: string; unit?: string; testId: string; height: number }) {
  return (
    <ChartFrame title={title} unit={unit} testId={testId} subtitle="loading…">
      <div className="chart-placeholder" style={{ height }} />
    </ChartFrame>
  );
}

function TimeChart({ s, width, domain, it, fullScale, setFullScale }: { s: TimeSection; width: number; domain: [number, number]; it: TimeInteraction; fullScale: boolean; setFullScale: (f: boolean) => void }) {
  const testId = `chart-${s.id}`;
  if (s.answer.error && !s.answer.draw) return <ErrorBox error={s.answer.error} title={s.title} />;
  if (!s.answer.draw) return <Loading title={s.title} unit={s.unit} testId={testId} height={s.height} />;
  const shaped = s.answer.draw();
  const robust = s.robust ? robustTop(shaped.lines) : null;
  const clipped = robust !== null && !fullScale;
  const y = s.y ? s.y(shaped.lines) : valueAxis(clipped ? robust.top * 1.08 : maxOf(shaped.lines), s.unitOf);
  const scaleNote = robust && (
    <button
      type="button"
      className={`toggle scale-toggle${clipped ? ' on' : ''}`}
      data-testid={`scale-${s.id}`}
      aria-pressed={clipped}
      title={
        clipped
          ? `The scale stops at the ${ROBUST_Q * 100}th percentile of the values drawn (${formatQuantity(robust.top, s.unitOf)}): ${robust.above} interval${robust.above === 1 ? '' : 's'} above it, up to ${formatQuantity(robust.max, s.unitOf)}, run off the top. Click for the full scale.`
          : `Full scale, up to ${formatQuantity(robust.max, s.unitOf)}. Click to stop the scale at the ${ROBUST_Q * 100}th percentile so the steady state can be read.`
      }
      onClick={() => setFullScale(clipped)}
    >
      {clipped ? `scale clipped at p${ROBUST_Q * 100} · ${robust.above} above, max ${formatQuantity(robust.max, s.unitOf)}` : `full scale · clip at p${ROBUST_Q * 100}`}
    </button>
  );
  return (
    <ChartFrame
      title={s.title}
      unit={s.unitFromAxis ? y.unit : s.unit}
      subtitle={s.sub(formatSpan(shaped.grid.interval))}
      keys={s.keys}
      controls={
        scaleNote ? (
          <>
            {s.controls}
            {scaleNote}
          </>
        ) : (
          s.controls
        )
      }
      lost={lostNotes(shaped.lines)}
      stale={s.answer.stale}
      testId={testId}
    >
      <TimeSeriesChart
        input={{ width, height: s.height, domain, grid: shaped.grid, lines: named(shaped.lines), y }}
        format={(v) => formatQuantity(v, s.unitOf)}
        head={head}
        foot={s.foot}
        stale={s.answer.stale}
        {...it}
      />
      {s.after}
    </ChartFrame>
  );
}

/** The lines of a time chart with their hover names: the capture, and the measure of its line. */
function named(ls: LineSeries[]): NamedLine[] {
  return ls.map((s) => ({ key: s.key, color: s.color, dash: s.dash, width: s.width, values: s.values, name: s.measure ? `${s.meta.label} · ${s.measure}` : s.meta.label, detail: s.detail ?? detailOf(s.meta) }));
}

/** The head of a time chart's hover box: the interval under the pointer. */
function head(t: number, w: number): ReactNode {
  return (
    <>
      <strong>{formatBucket(t, w)}</strong> <span className="muted">· {formatSpan(w)} interval, since run start</span>
    </>
  );
}

/** A distribution over the window (latency histogram, request sizes); the cell draws them side by side. */
interface DistSection {
  /** The chart it is in the toolbar and the URL; its test id is chart-ID. */
  id: BlockChart;
  title: string;
  sub: string;
  answer: Answer<{
    /** For the events-lost chip, and whether the window has any I/O to draw. */
    series: readonly { meta: SeriesMeta; total: number }[];
    chart: ReactNode;
    /** The numbers under the chart. */
    summary: ReactNode;
  }>;
  /** What the frame says when the window has no I/O. */
  none: string;
}

function DistChart({ s, width }: { s: DistSection; width: number }) {
  if (s.answer.error && !s.answer.draw) return <ErrorBox error={s.answer.error} title={s.title} />;
  const d = s.answer.draw?.();
  return (
    <ChartFrame title={s.title} subtitle={s.sub} lost={d ? lostNotes(d.series) : undefined} compactLost stale={s.answer.stale} testId={`chart-${s.id}`} className="dist-frame">
      <div style={{ width }}>
        {!d ? (
          <div className="chart-placeholder" style={{ height: 200 }} />
        ) : d.series.some((x) => x.total > 0) ? (
          <>
            {d.chart}
            <div className="dist-summary">{d.summary}</div>
          </>
        ) : (
          <p className="muted chart-none">{s.none}</p>
        )}
      </div>
    </ChartFrame>
  );
}

/** A series of a distribution chart in its capture's colour, named for the hover box. */
function drawnAs<T extends { meta: SeriesMeta }>(s: T): T & { color: string; name: string; detail: string } {
  return { ...s, color: s.meta.color, name: s.meta.label, detail: detailOf(s.meta) };
}

function ScatterChart({ q, captures, width, domain, it, op }: { q: Kept<BlockScatter>; captures: string[]; width: number; domain: [number, number]; it: TimeInteraction; op: string }) {
  if (q.error && !q.data) return <ErrorBox error={q.error} title="Sector scatter" />;
  if (!q.data) return <Loading title="Sector vs time" testId="chart-scatter" height={260} />;
  const metas = seriesMetas(q.data.series, captures);
  const series = q.data.series.map((s, i) => {
    const keep = s.op.map((o) => op === 'all' || o === op);
    const pick = <T,>(a: readonly T[]) => a.filter((_, k) => keep[k]);
    return {
      key: metas[i]!.key,
      color: metas[i]!.color,
      name: s.label,
      detail: `run ${s.run_id} · device ${s.device ?? 'all'}`,
      weight: s.weight,
      t: pick(s.t_ns),
      sector: pick(s.sector),
      bytes: pick(s.bytes),
      op: pick(s.op),
    };
  });
  const sampled = q.data.series.filter((s) => s.weight > 1);
  return (
    <ChartFrame
      title="Sector vs time"
      unit="disk offset"
      subtitle={`first sector of each I/O at its issue time; ■ read, □ other · ${sampled.length ? `a sample: ${sampled.map((s) => `${s.label} 1 in ${s.weight}`).join(', ')}` : 'every I/O'}`}
      lost={lostNotes(metas.map((m) => ({ meta: m })))}
      stale={q.stale}
      testId="chart-scatter"
    >
      <SectorScatter series={series} domain={domain} width={width} {...it} />
    </ChartFrame>
  );
}

function Toolbar({ state, set, ops, devices }: { state: BlockState; set: (p: Partial<BlockState>) => void; ops: { op: string; count: number }[]; devices: string[] }) {
  const toggle = (c: BlockChart) => set({ charts: state.charts.includes(c) ? state.charts.filter((x) => x !== c) : CHARTS.filter((x) => x === c || state.charts.includes(x)) });
  const total = ops.reduce((a, o) => a + o.count, 0);
  const opList = ops.some((o) => o.op === state.op) || state.op === 'all' ? ops : [...ops, { op: state.op, count: 0 }];
  return (
    <div className="cell-toolbar block-toolbar">
      <div className="segmented" role="group" aria-label="Charts">
        {CHARTS.map((c) => (
          <button key={c} type="button" className={`toggle${state.charts.includes(c) ? ' on' : ''}`} aria-pressed={state.charts.includes(c)} onClick={() => toggle(c)}>
            {CHART_NAMES[c]}
          </button>
        ))}
      </div>
      <div className="segmented" role="group" aria-label="Operation">
        <button type="button" className={`toggle${state.op === 'all' ? ' on' : ''}`} aria-pressed={state.op === 'all'} onClick={() => set({ op: 'all' })} title="Every operation, summed">
          All ops
        </button>
        {opList.map((o) => (
          <button
            key={o.op}
            type="button"
            className={`toggle${state.op === o.op ? ' on' : ''}`}
            aria-pressed={state.op === o.op}
            onClick={() => set({ op: o.op })}
            title={`${o.op}: ${formatCount(o.count)} I/Os completed in the window${total ? ` (${formatQuantity(o.count / total, 'share')})` : ''}`}
          >
            {o.op}
          </button>
        ))}
      </div>
      <label className="check-label" title="IOPS and throughput: one line per operation (dashed by operation)">
        <input type="checkbox" checked={state.split} disabled={state.op !== 'all'} onChange={(e) => set({ split: e.target.checked })} /> by operation
      </label>
      {devices.length > 1 || state.dev !== null ? (
        <label className="select-label">
          Device
          <select value={state.dev ?? ''} onChange={(e) => set({ dev: e.target.value === '' ? null : e.target.value })}>
            <option value="">busiest per run</option>
            <option value="all">all, summed</option>
            {devices.map((d) => (
              <option key={d} value={d}>
                {d}
              </option>
            ))}
          </select>
        </label>
      ) : null}
    </div>
  );
}

function ZoomBar({ range, full, interval, zoomTo }: { range: TimeRange; full: TimeRange; interval: number; zoomTo: (r: TimeRange | null) => void }) {
  const whole = isFull(range, full);
  return (
    <span className="zoom-bar" data-testid="zoom-bar">
      <span className="zoom-range" title="The time range shown, since run start">
        {whole ? (
          <>
            whole run, <b>{formatInstant(full.to, Math.max(interval, full.to / 1000))}</b>
          </>
        ) : (
          <>
            <b>
              {formatInstant(range.from, interval)} – {formatInstant(range.to, interval)}
            </b>{' '}
            <span className="muted">of {formatInstant(full.to, Math.max(interval, full.to / 1000))}</span>
          </>
        )}
      </span>
      <button type="button" className="icon-button" title="Earlier (←)" disabled={range.from <= full.from} onClick={() => zoomTo(panRange(range, full, -0.5))}>
        ‹
      </button>
      <button type="button" className="icon-button" title="Later (→)" disabled={range.to >= full.to} onClick={() => zoomTo(panRange(range, full, 0.5))}>
        ›
      </button>
      <button type="button" className="icon-button" title="Zoom out (-)" disabled={whole} onClick={() => zoomTo(zoomRange(range, full, 2))}>
        −
      </button>
      <button type="button" className="toggle" disabled={whole} onClick={() => zoomTo(null)} title="The whole run (double click a chart, or Esc)">
        Reset zoom
      </button>
    </span>
  );
}

function LatencyPicker({ state, set }: { state: BlockState; set: (p: Partial<BlockState>) => void }) {
  return (
    <span className="lat-picker" role="group" aria-label="Latency measures">
      {LATENCY_MEASURES.map((m) => {
        const onNow = state.lat.includes(m.id);
        return (
          <button
            key={m.id}
            type="button"
            className={`key-toggle${onNow ? ' on' : ''}`}
            aria-pressed={onNow}
            title={`${onNow ? 'Hide' : 'Show'} the ${m.label === 'mean' || m.label === 'max' ? m.label : `${m.label} percentile`} of each capture`}
            onClick={() => set({ lat: onNow ? state.lat.filter((x) => x !== m.id) : LATENCY_MEASURES.map((x) => x.id).filter((x) => x === m.id || state.lat.includes(x)) })}
          >
            <svg width="18" height="8" aria-hidden="true">
              <line x1="1" x2="17" y1="4" y2="4" strokeDasharray={m.dash || undefined} />
            </svg>
            {m.label}
          </button>
        );
      })}
    </span>
  );
}
