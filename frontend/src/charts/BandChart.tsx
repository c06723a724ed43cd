import { useLayoutEffect, useRef, useState } from 'react';
import { layoutBandChart, type BandChartInput } from './bandChart';

/** Lines with a band around each (layout in bandChart.ts), as wide as the cell (props.width at most). */
export function BandChart(props: BandChartInput & { ariaLabel: string; note?: string }) {
  const ref = useRef<HTMLElement>(null);
  const [avail, setAvail] = useState<number | null>(null);
  useLayoutEffect(() => {
    const el = ref.current?.parentElement;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(() => setAvail(Math.floor(el.clientWidth)));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const width = Math.max(360, Math.min(props.width, avail ?? props.width));
  const l = layoutBandChart({ ...props, width });
  if (l instanceof Error) return <p className="muted chart-empty">Chart: {l.message}.</p>;
  const { plot } = l;
  return (
    <figure className="band-chart" ref={ref}>
      <svg width={l.width} height={l.height} role="img" aria-label={props.ariaLabel}>
        {l.yTicks.map((t) => (
          <g key={`y${t.y}`}>
            <line x1={plot.left} x2={plot.right} y1={t.y} y2={t.y} className="chart-grid" />
            <text x={plot.left - 6} y={t.y + 3.5} textAnchor="end" className="chart-tick">
              {t.label}
            </text>
          </g>
        ))}
        <line x1={plot.left} x2={plot.right} y1={plot.bottom} y2={plot.bottom} className="chart-axis" />
        {l.xTicks.map((t, i) => (
          <g key={`x${i}`}>
            <line x1={t.x} x2={t.x} y1={plot.bottom} y2={plot.bottom + 4} className="chart-axis" />
            <text x={t.x} y={plot.bottom + 16} textAnchor="middle" className="chart-tick">
              {t.label}
            </text>
          </g>
        ))}
        <text x={(plot.left + plot.right) / 2} y={l.height - 3} textAnchor="middle" className="chart-label">
          {l.xTitle}
        </text>
        {l.series.map((s) => s.band && <path key={`b${s.key}`} d={s.band} fill={s.color} fillOpacity={0.13} stroke="none" />)}
        {l.series.map((s) => (
          <g key={s.key} data-series={s.label}>
            {s.line && <path d={s.line} fill="none" stroke={s.color} strokeWidth={1.8} strokeDasharray={s.dash || undefined} />}
            {s.dots.map((d, i) => (
              <circle key={i} cx={d.x} cy={d.y} r={3} fill={s.color}>
                <title>{d.title}</title>
              </circle>
            ))}
          </g>
        ))}
      </svg>
      <figcaption className="chart-legend">
        {l.series.map((s) => (
          <span key={s.key}>
            <svg width={22} height={10} aria-hidden="true">
              <line x1={1} x2={21} y1={5} y2={5} stroke={s.color} strokeWidth={2} strokeDasharray={s.dash || undefined} />
            </svg>
            {s.label}
          </span>
        ))}
        {props.note && <span className="muted">{props.note}</span>}
      </figcaption>
    </figure>
  );
}
