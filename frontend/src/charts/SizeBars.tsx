// The request size distribution as grouped bars (layout in sizeBars.ts), with a hover box per size
// class: each series' I/Os, share, bytes and most frequent exact size.
import { useState } from 'react';
import { formatCount, formatQuantity, formatSize } from '../logic/blockFormat';
import { layoutSizeBars, type SizeInputSeries, type SizeLayout } from './sizeBars';
import { Tooltip, type TipRow } from './Tooltip';
import './charts.css';

export interface SizeSeriesView extends SizeInputSeries {
  name: string;
  detail: string;
  bins: readonly { low: number; high: number; share: number; count: number; bytes: number; mode: number }[];
}

export function SizeBarsSvg({ l }: { l: SizeLayout }) {
  const { plot } = l;
  const every = Math.max(1, Math.ceil(l.groups.length / Math.max(1, Math.floor((plot.right - plot.left) / 34))));
  return (
    <svg width={l.width} height={l.height} className="size-chart" role="img">
      {l.yTicks.map((t) => (
        <g key={`y${t.y}`}>
          <line x1={plot.left} x2={plot.right} y1={t.y} y2={t.y} className="chart-grid" />
          <text x={plot.left - 6} y={t.y + 3.5} textAnchor="end" className="chart-tick">
            {t.label}
          </text>
        </g>
      ))}
      {l.bars.map((b) => (
        <rect key={b.key} x={b.x} y={b.y} width={b.w} height={b.h} fill={b.color} />
      ))}
      <line x1={plot.left} x2={plot.right} y1={plot.bottom + 0.5} y2={plot.bottom + 0.5} className="chart-axis" />
      <text transform={`translate(9 ${(plot.top + plot.bottom) / 2}) rotate(-90)`} textAnchor="middle" className="chart-label">
        % of I/Os
      </text>
      {l.groups.map((g, i) =>
        i % every === 0 ? (
          <text key={g.low} x={g.x} y={plot.bottom + 13} textAnchor="middle" className="chart-tick">
            {g.label}
          </text>
        ) : null,
      )}
      <text x={(plot.left + plot.right) / 2} y={l.height - 3} textAnchor="middle" className="chart-label">
        request size (bytes, power-of-two classes)
      </text>
    </svg>
  );
}

export function SizeBars({ series, width, height = 200, scope = 'I/Os issued in the window' }: { series: readonly SizeSeriesView[]; width: number; height?: number; scope?: string }) {
  const l = layoutSizeBars(series, width, height);
  const [hover, setHover] = useState<{ g: number; x: number } | null>(null);
  let tip = null;
  const g = hover ? l.groups[hover.g] : undefined;
  if (hover && g) {
    const rows: TipRow[] = series.map((s) => {
      const b = s.bins.find((bn) => bn.low === g.low);
      return {
        key: s.key,
        color: s.color,
        name: s.name,
        detail: b ? `${s.detail} · ${formatSize(b.bytes)} in all${b.mode !== g.low ? `, mostly ${formatSize(b.mode)}` : ''}` : s.detail,
        value: b ? `${formatCount(b.count)} I/Os · ${formatQuantity(b.share, 'share')}` : '–',
      };
    });
    const head = g.low === 0 ? 'requests without data (0 bytes)' : `size ${formatSize(g.low)} – ${formatSize(g.high)}`;
    tip = <Tooltip x={hover.x} y={l.plot.top} width={width} head={head} rows={rows} foot={`share of the series' ${scope}`} />;
  }
  return (
    <div className="ts-wrap" style={{ width, height }}>
      <SizeBarsSvg l={l} />
      <svg width={width} height={height} className="overlay-svg">
        {l.groups.map((gr, i) => (
          <rect
            key={gr.low}
            x={gr.x - gr.w / 2}
            y={l.plot.top}
            width={gr.w}
            height={l.plot.bottom - l.plot.top}
            className={`band-hover${hover?.g === i ? ' on' : ''}`}
            onMouseEnter={() => setHover({ g: i, x: gr.x })}
            onMouseLeave={() => setHover(null)}
          />
        ))}
      </svg>
      {tip}
    </div>
  );
}
