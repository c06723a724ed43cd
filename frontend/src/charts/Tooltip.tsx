// The hover box of the charts: placed beside the pointer, inside the chart's box, flipped to the
// left of the pointer near the right edge. Rows: a colour swatch (with the line's dash), a name,
// a value with its unit, and a muted detail line (run, device, source).
import type { ReactNode } from 'react';
import './charts.css';

export interface TipRow {
  key: string;
  color: string;
  dash?: string;
  name: string;
  value: string;
  detail?: string;
}

interface Props {
  x: number;
  y: number;
  /** Width of the chart box, to keep the tooltip inside it. */
  width: number;
  head: ReactNode;
  rows: readonly TipRow[];
  foot?: ReactNode;
}

const TIP_WIDTH = 300;

export function Tooltip({ x, y, width, head, rows, foot }: Props) {
  const left = x + 14 + TIP_WIDTH > width ? Math.max(0, x - 14 - TIP_WIDTH) : x + 14;
  return (
    <div className="chart-tip" style={{ left, top: Math.max(0, y) }} role="tooltip" data-testid="chart-tip">
      <div className="tip-head">{head}</div>
      <table>
        <tbody>
          {rows.map((r) => (
            <tr key={r.key}>
              <td className="tip-key">
                <svg width="16" height="8" aria-hidden="true">
                  <line x1="1" x2="15" y1="4" y2="4" stroke={r.color} strokeWidth={2} strokeDasharray={r.dash || undefined} />
                </svg>
              </td>
              <td className="tip-name">
                {r.name}
                {r.detail && <div className="tip-detail">{r.detail}</div>}
              </td>
              <td className="tip-value">{r.value}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {foot && <div className="tip-foot">{foot}</div>}
    </div>
  );
}
