import { layoutHistStrip } from './histStrip';

interface Props {
  bins: readonly number[];
  /** Hover text of each bin (what, where, how many, unit). */
  titles: readonly string[];
  marks: readonly { key: string; pos: number; title?: string }[];
  color: string;
  width?: number;
  height?: number;
}

// Marker styles (also in the cell's CSS): p50 solid, p90 dashed, p99 dotted and brown.
const MARK_STROKE: Record<string, string> = { p99: '#8a4b00' };
const MARK_DASH: Record<string, string> = { p90: '3 2', p99: '1.5 1.5' };

/** A histogram drawn in a table cell (layout in histStrip.ts): bars per bin, markers (p50/p90/p99). */
export function HistStrip({ bins, titles, marks, color, width = 240, height = 18 }: Props) {
  const l = layoutHistStrip(bins, marks, width, height);
  return (
    <svg className="hist-strip" width={width} height={height} role="img" aria-label="histogram">
      <line x1={0} x2={width} y1={height - 0.5} y2={height - 0.5} className="hist-strip-base" stroke="#d8dee4" />
      {l.bars.map((b) => (
        <rect key={b.i} x={b.x} y={b.y} width={b.w} height={b.h} fill={color} fillOpacity={0.55}>
          <title>{titles[b.i]}</title>
        </rect>
      ))}
      {l.marks.map((m, i) => (
        <line key={m.key} x1={m.x} x2={m.x} y1={0} y2={height} className={`hist-mark hist-mark-${m.key}`} stroke={MARK_STROKE[m.key] ?? '#1f2328'} strokeDasharray={MARK_DASH[m.key]}>
          <title>{marks[i]?.title ?? m.key}</title>
        </line>
      ))}
    </svg>
  );
}
