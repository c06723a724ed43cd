import type { SqlChartSpec } from '../api/client';
import { layoutSqlChart } from './sqlChart';

interface Props {
  columns: readonly string[];
  rows: readonly unknown[][];
  spec: SqlChartSpec;
  width?: number;
}

/** A SQL result drawn as line, bar or scatter (layout in sqlChart.ts). */
export function SqlChart({ columns, rows, spec, width = 720 }: Props) {
  const l = layoutSqlChart(columns, rows, spec, width);
  if (l instanceof Error) return <p className="muted chart-empty">Chart: {l.message}.</p>;
  const { plot } = l;
  return (
    <figure className="sql-chart">
      <svg width={l.width} height={l.height} role="img" aria-label={`${spec.mark} chart of ${spec.y.join(', ')} by ${spec.x}`}>
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
          <text key={`x${i}`} x={t.x} y={plot.bottom + 14} textAnchor="middle" className="chart-tick">
            {t.label.length > l.xLabelChars ? t.label.slice(0, l.xLabelChars - 1) + '…' : t.label}
            <title>{t.label}</title>
          </text>
        ))}
        <text x={(plot.left + plot.right) / 2} y={l.height - 3} textAnchor="middle" className="chart-label">
          {l.xLabel}
        </text>
        {l.series.map((s) => (
          <g key={s.name}>
            {s.path && <path d={s.path} fill="none" stroke={s.color} strokeWidth={1.5} />}
            {s.bars.map((b, i) => (
              <rect key={i} x={b.x} y={b.y} width={b.w} height={b.h} fill={s.color}>
                <title>{b.title}</title>
              </rect>
            ))}
            {s.points.map((p, i) => (
              <circle key={i} cx={p.x} cy={p.y} r={spec.mark === 'line' ? 2.2 : 3} fill={s.color} fillOpacity={spec.mark === 'scatter' ? 0.7 : 1}>
                <title>{p.title}</title>
              </circle>
            ))}
          </g>
        ))}
      </svg>
      <figcaption className="chart-legend">
        {l.series.map((s) => (
          <span key={s.name}>
            <i style={{ background: s.color }} />
            {s.name}
          </span>
        ))}
        {l.skipped > 0 && <span className="muted">{l.skipped} values without a number left out</span>}
      </figcaption>
    </figure>
  );
}
