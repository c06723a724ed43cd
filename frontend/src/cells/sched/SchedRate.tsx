// Context switches (or another per-CPU rate) over time: small multiples, one chart per capture and
// run with a line per CPU (the workload's CPUs in the capture's colour, the others grey), or every
// capture's workload CPUs overlaid in one chart. Drawn with the shared TimeSeriesChart.
import { createContext, useCallback, useContext, useMemo, useState } from 'react';
import { ChartFrame } from '../../charts/ChartFrame';
import { TimeSeriesChart } from '../../charts/TimeSeriesChart';
import { useWidth } from '../../charts/useWidth';
import { formatBucket, formatSpan, valueAxis } from '../../logic/blockFormat';
import { countedPlacement, fmtRate, fmtSec, maxValue, MEASURE_INFO, rateOverlay, ratePanels, RUN_DASHES, type RateLine, type RateMeasure, type SchedColumn, type SchedSwitchRate } from '../../logic/sched';
import { CapName } from './parts';

const PANEL_HEIGHT = 150;
const OVERLAY_HEIGHT = 190;
const GAP = 14;
const MIN_PANEL = 300;

/** The notebook's shared time selection, ns since each run's start (SchedCell provides it): each
 *  run's chart shows it moved onto that run's trace by the run's own offset (logic/sched runWindow). */
export const SchedTimeWindow = createContext<[number, number] | null>(null);

/** The charts' zoom, and the window of a chart whose run's part of the selection is `window`. */
function useTimeDomain(maxS: number) {
  const full: [number, number] = [0, Math.max(1e8, maxS * 1e9)];
  const [zoom, setZoom] = useState<[number, number] | null>(null);
  const [hoverT, setHoverT] = useState<number | null>(null);
  const sel = useContext(SchedTimeWindow);
  const domainOf = (window: [number, number] | null): [number, number] => (sel && window ? window : (zoom ?? full));
  const it = {
    hoverT,
    onHover: setHoverT,
    onZoom: (a: number, b: number) => {
      const lo = Math.max(0, Math.min(a, b));
      const hi = Math.min(full[1], Math.max(a, b));
      if (hi - lo >= 1e6) setZoom(lo <= 0 && hi >= full[1] ? null : [lo, hi]);
    },
    onReset: () => setZoom(null),
  };
  return { sel, domainOf, it, zoomed: zoom !== null, reset: () => setZoom(null) };
}

/** The colour of each capture's column ('#888' for one not shown), stable while the columns are. */
function useColorOf(columns: SchedColumn[]): (id: string) => string {
  return useCallback((id: string) => columns.find((c) => c.id === id)?.color ?? '#888', [columns]);
}

function LostChip({ what }: { what: string }) {
  return (
    <span className="lost-chip" data-testid="lost-chip" title={`${what} lost scheduler events: its lines undercount. perf stat's counted line (dotted) is not affected.`}>
      ⚠ events lost
    </span>
  );
}

/** One chart per capture and run, on shared time and value scales. */
export function RateMultiples({ answers, columns, measure, counted }: { answers: SchedSwitchRate[]; columns: SchedColumn[]; measure: RateMeasure; counted: boolean }) {
  const colorOf = useColorOf(columns);
  const sel = useContext(SchedTimeWindow);
  const panels = useMemo(() => ratePanels(answers, colorOf, measure, counted, sel), [answers, colorOf, measure, counted, sel]);
  const [ref, width] = useWidth<HTMLDivElement>(1200);
  const maxS = Math.max(0, ...panels.map((p) => p.durationS));
  const { domainOf, it, zoomed, reset } = useTimeDomain(maxS);
  const y = valueAxis(maxValue(panels.flatMap((p) => p.lines)), 'count');
  const perRow = Math.max(1, ...answers.map((a) => a.runs.length));
  const cols = Math.max(1, Math.min(perRow, Math.floor((width + GAP) / (MIN_PANEL + GAP))));
  const pw = Math.floor((width - GAP * (cols - 1)) / cols);
  const info = MEASURE_INFO[measure];
  const step = answers[0]?.step_ms ?? 1000;
  return (
    <div ref={ref} className="rate-multiples" data-testid="sched-rate">
      <div className="rate-caption">
        <span className="chart-title">{info.label} per second, per CPU</span>
        <span className="muted">
          {' '}
          · {formatSpan(step * 1e6)} intervals · time since each run's first event
          {sel ? " · each run cut at the timeline selection on its own clock (moved by that run's offset)" : ''} · workload CPUs in the capture's colour, others grey
          {counted && info.counted ? ' · dotted: perf stat’s count of the same CPU, per second of its own 1 s intervals (at a shorter interval the trace’s peaks stand higher than perf stat’s averages)' : ''}
        </span>
        {zoomed && (
          <button type="button" className="link-button rate-reset" onClick={reset}>
            Reset zoom
          </button>
        )}
      </div>
      {columns
        .filter((c) => answers.some((a) => a.capture_id === c.id))
        .map((c) => (
          <div key={c.id} className="rate-row">
            <div className="rate-row-head">
              <CapName c={c} /> <span className="muted">{c.workload}</span>
            </div>
            <div className="rate-panels" style={{ gap: GAP }}>
              {panels
                .filter((p) => p.captureId === c.id)
                .map((p) => (
                  <ChartFrame
                    key={p.key}
                    title={`run ${p.runId}`}
                    unit={`${fmtSec(p.durationS)} traced`}
                    subtitle={p.window ? `selection: ${(p.window[0] / 1e9).toFixed(3)}–${(p.window[1] / 1e9).toFixed(3)} s of its trace` : undefined}
                    controls={p.lost ? <LostChip what={`Run ${p.runId}`} /> : undefined}
                    testId="sched-rate-panel"
                    className="rate-panel"
                  >
                    <TimeSeriesChart
                      input={{ width: pw, height: PANEL_HEIGHT, domain: domainOf(p.window), grid: p.grid, lines: p.lines, y }}
                      format={fmtRate}
                      head={(t, iv) => (
                        <>
                          <b>{p.label}</b> · run {p.runId}
                          <div className="muted">{formatBucket(t, iv)} since the run's first event</div>
                        </>
                      )}
                      {...it}
                    />
                    {countedPlacement(p.counted) && (
                      <p className="muted small rate-placement" data-testid="stat-placement" data-alignment={p.counted!.alignment} title={p.counted!.note}>
                        {p.counted!.alignment === 'unknown' ? '⚠ ' : ''}
                        {countedPlacement(p.counted)}
                      </p>
                    )}
                  </ChartFrame>
                ))}
            </div>
          </div>
        ))}
      <p className="muted small chart-help">Drag across a chart to zoom (all charts follow), double-click to reset. Hover for every CPU's rate at that moment.</p>
    </div>
  );
}

/** Every capture's workload CPUs in one chart: colour by capture, dash by run. */
export function RateOverlayChart({ answers, columns, measure, height = OVERLAY_HEIGHT, title }: { answers: SchedSwitchRate[]; columns: SchedColumn[]; measure: RateMeasure; height?: number; title?: string }) {
  const colorOf = useColorOf(columns);
  const sel = useContext(SchedTimeWindow);
  const o = useMemo(() => rateOverlay(answers, colorOf, measure, sel), [answers, colorOf, measure, sel]);
  const [ref, width] = useWidth<HTMLDivElement>(600);
  const maxS = (o.grid.t.length * o.grid.interval) / 1e9;
  const { domainOf, it, zoomed, reset } = useTimeDomain(maxS);
  const y = valueAxis(maxValue(o.lines), 'count');
  const info = MEASURE_INFO[measure];
  const byKey = new Map<string, RateLine>(o.lines.map((l) => [l.key, l]));
  return (
    <div ref={ref} className="rate-overlay" data-testid="sched-rate">
      <ChartFrame
        title={title ?? `${info.label}/s on the workload CPUs`}
        unit={`${formatSpan(o.grid.interval)} intervals`}
        keys={o.runs.length > 1 ? o.runs.map((r, i) => ({ label: r, dash: RUN_DASHES[i % RUN_DASHES.length]!, title: `run ${r}` })) : []}
        controls={
          <>
            {zoomed && (
              <button type="button" className="link-button" onClick={reset}>
                Reset zoom
              </button>
            )}
            {o.lost.length > 0 && <LostChip what={o.lost.map((l) => l.label).join(', ')} />}
          </>
        }
      >
        <TimeSeriesChart
          input={{ width, height, domain: domainOf(o.window), grid: o.grid, lines: o.lines, y }}
          format={fmtRate}
          head={(t, iv) => (
            <>
              <b>{info.label}/s</b>
              <div className="muted">{formatBucket(t, iv)} since each run's first event</div>
            </>
          )}
          {...it}
        />
      </ChartFrame>
      <div className="rate-legend">
        {columns
          .filter((c) => answers.some((a) => a.capture_id === c.id))
          .map((c) => (
            <span key={c.id} className="legend-item">
              <CapName c={c} /> <span className="muted">{c.workload}</span>
            </span>
          ))}
        {byKey.size === 0 && <span className="muted">No run with a trace.</span>}
      </div>
    </div>
  );
}
