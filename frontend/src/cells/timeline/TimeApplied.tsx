// The notice a cell shows while the notebook's shared time selection (a timeline cell's brush) is
import './timeline.css';
// applied to it, with what it means for that cell and a button to clear it.
import type { ReactNode } from 'react';
import { sharedTimeText, type SharedTime } from './shared';

export function TimeApplied({ time, onClear, children }: { time: SharedTime; onClear?: () => void; children?: ReactNode }) {
  return (
    <div className="time-applied" data-testid="time-applied">
      <span>
        <i className="sw" style={{ background: '#1f5fbf' }} /> Timeline selection: <strong>{sharedTimeText(time)}</strong>
      </span>
      {children && <span className="muted">{children}</span>}
      {onClear && (
        <button type="button" className="link-button" data-testid="time-applied-clear" onClick={onClear}>
          clear
        </button>
      )}
    </div>
  );
}
