// The frame of a chart in an analysis cell: a one-line header (title, unit, what it shows, the key
// of its line styles, a warning when a series it draws lost events) above the chart itself.
import type { ReactNode } from 'react';
import './charts.css';

export interface StyleKey {
  label: string;
  /** stroke-dasharray of the sample line ('' = solid) */
  dash: string;
  title?: string;
}

export interface LostNote {
  key: string;
  label: string;
  color: string;
}

interface Props {
  title: string;
  unit?: string;
  subtitle?: ReactNode;
  keys?: readonly StyleKey[];
  lost?: readonly LostNote[];
  /** Showing older, coarser data while the new answer loads. */
  stale?: boolean;
  /** Name the captures that lost events in the title only (narrow charts): swatches in the chip. */
  compactLost?: boolean;
  /** Controls at the right of the header (before the style keys). */
  controls?: ReactNode;
  testId?: string;
  className?: string;
  children: ReactNode;
}

export function ChartFrame({ title, unit, subtitle, keys = [], lost = [], stale = false, compactLost = false, controls, testId, className = '', children }: Props) {
  return (
    <figure className={`chart-frame ${className}`} data-testid={testId}>
      <figcaption className="chart-head">
        <span className="chart-title">{title}</span>
        {unit && <span className="chart-unit">{unit}</span>}
        {subtitle && <span className="chart-sub">{subtitle}</span>}
        <span className="chart-head-right">
          {stale && <span className="chart-stale">updating…</span>}
          {controls}
          {keys.map((k) => (
            <span key={k.label} className="style-key" title={k.title}>
              <svg width="20" height="8" aria-hidden="true">
                <line x1="1" x2="19" y1="4" y2="4" strokeDasharray={k.dash || undefined} />
              </svg>
              {k.label}
            </span>
          ))}
          {lost.length > 0 && (
            <span
              className="lost-chip"
              data-testid="lost-chip"
              title={`Drawn from captures that lost block events, so their numbers are too low: ${lost.map((l) => l.label).join(', ')}. See the warning above the charts.`}
            >
              ⚠ events lost{compactLost ? ' ' : ': '}
              {lost.map((l, i) => (
                <span key={l.key}>
                  {i > 0 && !compactLost && ', '}
                  <i className="swatch" style={{ background: l.color }} />
                  {!compactLost && l.label}
                </span>
              ))}
            </span>
          )}
        </span>
      </figcaption>
      {children}
    </figure>
  );
}
