// A latency histogram on a log axis (layout in logHistogram.ts), one outlined area per series,
// p50/p99 markers, and a hover box with each series' bin under the pointer.
import { useState, type MouseEvent } from 'react';
import { formatCount, formatLatency, formatQuantity } from '../logic/blockFormat';
import { layoutLogHistogram, type HistInputSeries, type HistLayout } from './logHistogram';
import { Tooltip, type TipRow } from './Tooltip';
import './charts.css';

export interface HistSeriesView extends HistInputSeries {
  name: string;
  detail: string;
  bins: readonly { low: number; high: number; share: number; count: number }[];
}

export function LatencyHistogramSvg({ l }: { l: HistLayout }) {
  const { plot } = l;
  return (
    <svg width={l.width} height={l.height} className="hist-chart" role="img">
      {l.yTicks.map((t) => (
        <g key={`y${t.y}`}>
          <line x1={plot.left} x2={plot.right} y1={t.y} y2={t.y} className="chart-grid" />
          <text x={plot.left - 6} y={t.y + 3.5} textAnchor="end" className="chart-tick">
            {t.label}
          </text>
        </g>
      ))}
      {l.xTicks.map((t) => (
        <g key={`x${t.x}`}>
          <line x1={t.x} x2={t.x} y1={plot.bottom} y2={plot.bottom + 3} className="chart-axis" />
          <text x={t.x} y={plot.bottom + 13} textAnchor="middle" className="chart-tick">
            {t.label}
          </text>
        </g>
      ))}
      <line x1={plot.left} x2={plot.right} y1={plot.bottom + 0.5} y2={plot.bottom + 0.5} className="chart-axis" />
      <text transform={`translate(9 ${(plot.top + plot.bottom) / 2}) rotate(-90)`} textAnchor="middle" className="chart-label">
        % of I/Os
      </text>
      <text x={(plot.left + plot.right) / 2} y={l.height - 3} textAnchor="middle" className="chart-label">
        completion latency (issue → complete), log scale
      </text>
      {l.series.map((s) => (
        <g key={s.key}>
          <path d={s.area} fill={s.color} fillOpacity={0.1} stroke="none" />
          <path d={s.line} fill="none" stroke={s.color} strokeWidth={1.3} strokeLinejoin="round" />
          {s.marks.map((mk) => (
            <path
              key={mk.p}
              d={`M${mk.x - 3.5},${plot.top - 8}h7l-3.5,6z`}
              fill={mk.p === 'p99' ? s.color : '#fff'}
              stroke={s.color}
              strokeWidth={1.2}
            >
              <title>{mk.p}</title>
            </path>
          ))}
        </g>
      ))}
    </svg>
  );
}

export function LatencyHistogram({ series, width, height = 200, scope = 'I/Os completed in the window' }: { series: readonly HistSeriesView[]; width: number; height?: number; scope?: string }) {
  const l = layoutLogHistogram(series, width, height);
  const [mouse, setMouse] = useState<{ x: number; y: number } | null>(null);
  const onMove = (e: MouseEvent<SVGRectElement>) => {
    const r = (e.currentTarget.ownerSVGElement ?? e.currentTarget).getBoundingClientRect();
    setMouse({ x: e.clientX - r.left, y: e.clientY - r.top });
  };
  let tip = null;
  if (mouse) {
    const v = l.v(mouse.x);
    const rows: TipRow[] = [];
    let range: [number, number] | null = null;
    for (const s of series) {
      const b = s.bins.find((bn) => bn.low <= v && v < bn.high);
      if (b && !range) range = [b.low, b.high];
      rows.push({ key: s.key, color: s.color, name: s.name, detail: s.detail, value: b ? `${formatCount(b.count)} I/Os · ${formatQuantity(b.share, 'share')}` : '–' });
    }
    tip = (
      <Tooltip
        x={mouse.x}
        y={l.plot.top}
        width={width}
        head={range ? `latency ${formatLatency(range[0])} – ${formatLatency(range[1])}` : `latency ≈ ${formatLatency(v)}`}
        rows={rows}
        foot={`share of the series' ${scope}; 8 bins per doubling`}
      />
    );
  }
  return (
    <div className="ts-wrap" style={{ width, height }}>
      <LatencyHistogramSvg l={l} />
      <svg width={width} height={height} className="overlay-svg">
        <rect x={l.plot.left} y={l.plot.top} width={Math.max(0, l.plot.right - l.plot.left)} height={Math.max(0, l.plot.bottom - l.plot.top)} fill="transparent" onMouseMove={onMove} onMouseLeave={() => setMouse(null)} />
        {mouse && <line x1={mouse.x} x2={mouse.x} y1={l.plot.top} y2={l.plot.bottom} className="crosshair" pointerEvents="none" />}
      </svg>
      {tip}
    </div>
  );
}
