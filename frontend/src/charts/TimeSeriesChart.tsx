// A time-series line chart (layout in timeSeries.ts): lines per time bucket, a crosshair shared
// with the other charts of its cell, a hover box with every line's value at the bucket under the
// pointer, brush to zoom, drag the time axis (or Shift-drag) to pan, double click to reset.
// `TimeSeriesSvg` is the static drawing (golden SVG tests); `TimeAxes` is shared with the
// other charts on a time axis.
import { useId, type ReactNode } from 'react';
import { bucketAt, layoutTimeSeries, type TimeLine, type TimeSeriesInput, type TimeSeriesLayout } from './timeSeries';
import { useTimeBrush, type TimeInteraction } from './timeBrush';
import { Tooltip, type TipRow } from './Tooltip';
import './charts.css';

export interface NamedLine extends TimeLine {
  /** Hover name: 'ext4 qd32 · p99'. */
  name: string;
  /** Hover detail line: 'run r000 · device 7,1 · tiles 1 ms'. */
  detail?: string;
}

const r1 = (v: number) => Math.round(v * 10) / 10;

/** Grid lines, tick labels and axis lines of a chart on a time axis. */
export function TimeAxes({ l, xTitle = true }: { l: Pick<TimeSeriesLayout, 'plot' | 'xTicks' | 'xUnit' | 'yTicks' | 'height'>; xTitle?: boolean }) {
  const { plot } = l;
  return (
    <g className="axes">
      {l.yTicks.map((t) => (
        <g key={`y${t.y}`}>
          <line x1={plot.left} x2={plot.right} y1={t.y} y2={t.y} className="chart-grid" />
          <text x={plot.left - 6} y={t.y + 3.5} textAnchor="end" className="chart-tick">
            {t.label}
          </text>
        </g>
      ))}
      {l.xTicks.map((t, i) => (
        <g key={`x${t.x}`}>
          <line x1={t.x} x2={t.x} y1={plot.bottom} y2={plot.bottom + 3} className="chart-axis" />
          <text x={t.x} y={plot.bottom + 13} textAnchor="middle" className="chart-tick">
            {t.label}
          </text>
          {/* the unit once, after the first label (digits are ~6.2 px wide at this size) */}
          {i === 0 && xTitle && (
            <text x={r1(t.x + t.label.length * 3.1 + 3)} y={plot.bottom + 13} className="chart-tick chart-x-unit">
              {l.xUnit}
            </text>
          )}
        </g>
      ))}
      <line x1={plot.left} x2={plot.right} y1={plot.bottom + 0.5} y2={plot.bottom + 0.5} className="chart-axis" />
    </g>
  );
}

/** The static chart: axes and lines, clipped to the plot. */
export function TimeSeriesSvg({ l, clipId, faded = false, children }: { l: TimeSeriesLayout; clipId: string; faded?: boolean; children?: ReactNode }) {
  const { plot } = l;
  return (
    <svg width={l.width} height={l.height} className="ts-chart" role="img">
      <defs>
        <clipPath id={clipId}>
          <rect x={plot.left} y={plot.top - 2} width={Math.max(0, plot.right - plot.left)} height={Math.max(0, plot.bottom - plot.top + 3)} />
        </clipPath>
      </defs>
      <TimeAxes l={l} />
      <g clipPath={`url(#${clipId})`} opacity={faded ? 0.45 : undefined}>
        {l.paths.map((p) =>
          p.width === undefined ? (
            <path key={p.key} d={p.d} fill="none" stroke={p.color} strokeWidth={1.4} strokeDasharray={p.dash || undefined} strokeLinejoin="round" />
          ) : (
            <g key={p.key}>
              <path d={p.d} fill="none" stroke="#fff" strokeWidth={p.width + 2} strokeOpacity={0.85} strokeLinejoin="round" className="line-halo" />
              <path d={p.d} fill="none" stroke={p.color} strokeWidth={p.width} strokeDasharray={p.dash || undefined} strokeLinejoin="round" />
            </g>
          ),
        )}
      </g>
      {children}
    </svg>
  );
}

/** The brushed range while dragging, with its ends written at the top. */
export function BrushRect({ l, x0, x1, label }: { l: Pick<TimeSeriesLayout, 'plot' | 't'>; x0: number; x1: number; label?: (from: number, to: number) => string }) {
  const a = Math.min(x0, x1);
  const w = Math.abs(x1 - x0);
  const text = label && w >= 5 ? label(l.t(a), l.t(a + w)) : '';
  return (
    <g pointerEvents="none">
      <rect className="brush" x={a} y={l.plot.top} width={w} height={l.plot.bottom - l.plot.top} />
      {text && (
        <text x={a + w / 2} y={l.plot.top + 11} textAnchor="middle" className="brush-label">
          {text}
        </text>
      )}
    </g>
  );
}

interface Props extends TimeInteraction {
  input: Omit<TimeSeriesInput, 'lines'> & { lines: readonly NamedLine[] };
  /** A value with its unit, for the hover box. */
  format: (v: number) => string;
  /** The hover box's first line for the bucket starting at t. */
  head: (t: number, interval: number) => ReactNode;
  foot?: ReactNode;
  stale?: boolean;
  testId?: string;
}

export function TimeSeriesChart({ input, format, head, foot, stale = false, testId, ...it }: Props) {
  const clipId = `clip${useId().replace(/[^a-zA-Z0-9]/g, '')}`;
  const l = layoutTimeSeries(input);
  const { plot } = l;
  const { drag, mouse, handlers } = useTimeBrush(plot, l.t, input.domain, it);
  const hoverX = it.hoverT !== null && it.hoverT >= input.domain[0] && it.hoverT <= input.domain[1] ? l.x(it.hoverT) : null;
  const b = it.hoverT !== null ? bucketAt(input.grid, it.hoverT) : -1;
  const here = mouse !== null && !drag && mouse.x >= plot.left && mouse.x <= plot.right;
  const rows: TipRow[] =
    here && b >= 0
      ? input.lines
          .map((ln) => ({ ln, v: ln.values[b] ?? null }))
          .map(({ ln, v }) => ({ key: ln.key, color: ln.color, dash: ln.dash, name: ln.name, value: v === null ? '–' : format(v), detail: ln.detail, v }))
      : [];
  const panDx = drag?.mode === 'pan' ? drag.x1 - drag.x0 : 0;
  return (
    <div className="ts-wrap" style={{ width: l.width, height: l.height }} data-testid={testId}>
      <TimeSeriesSvg l={l} clipId={clipId} faded={stale || panDx !== 0}>
        {panDx !== 0 && <PanShift l={l} dx={panDx} clipId={clipId} />}
        {hoverX !== null && <line x1={hoverX} x2={hoverX} y1={plot.top} y2={plot.bottom} className="crosshair" />}
        {here &&
          b >= 0 &&
          hoverX !== null &&
          input.lines.map((ln) => {
            const v = ln.values[b];
            const y = v === null || v === undefined ? NaN : l.y(v);
            const cx = l.x((input.grid.t[b] ?? 0) + input.grid.interval / 2);
            return Number.isFinite(y) ? <circle key={ln.key} cx={cx} cy={y} r={2.6} fill={ln.color} stroke="#fff" strokeWidth={1} /> : null;
          })}
        {drag?.mode === 'zoom' && <BrushRect l={l} x0={drag.x0} x1={drag.x1} label={it.brushLabel} />}
        <rect className="brush-overlay" x={plot.left} y={plot.top} width={Math.max(0, plot.right - plot.left)} height={Math.max(0, plot.bottom - plot.top)} {...handlers} />
        <rect className="pan-overlay" x={plot.left} y={plot.bottom} width={Math.max(0, plot.right - plot.left)} height={l.height - plot.bottom} {...handlers} />
      </TimeSeriesSvg>
      {here && b >= 0 && rows.length > 0 && mouse && (
        <Tooltip x={mouse.x} y={plot.top} width={l.width} head={head(input.grid.t[b] ?? 0, input.grid.interval)} rows={rows} foot={foot} />
      )}
    </div>
  );
}

/** While panning: the lines moved by dx (the new range is fetched on release). */
function PanShift({ l, dx, clipId }: { l: TimeSeriesLayout; dx: number; clipId: string }) {
  return (
    <g clipPath={`url(#${clipId})`}>
      <rect x={l.plot.left} y={l.plot.top} width={l.plot.right - l.plot.left} height={l.plot.bottom - l.plot.top} fill="#fff" />
      <g transform={`translate(${dx},0)`}>
        {l.paths.map((p) => (
          <path key={p.key} d={p.d} fill="none" stroke={p.color} strokeWidth={p.width ?? 1.4} strokeDasharray={p.dash || undefined} />
        ))}
      </g>
    </g>
  );
}
