// The one empty state of a view whose captures lack its data: what is missing, in which captures,
// and the next step (the collector flag that records it; a capture of the notebook that has it; a
// capture of the library that has it, added to the notebook by a link). Every cell says it this
// way, in one tone (a note, not an error). The facts: logic/dataKinds.ts.
import type { ReactNode } from 'react';
import type { CapturePublic } from '../api/client';
import { useCaptureList } from '../api/queries';
import { captureColor } from '../logic/colors';
import { DATA_KINDS, dataKeys, emptyFacts, kindsNoun, type DataKey } from '../logic/dataKinds';
import { Link } from './router';

export interface EmptyStateProps {
  /** The kind of data the view needs; several when it draws any of them (the timeline's tracks). */
  data: DataKey | readonly DataKey[];
  /** The notebook's captures, in their order (colours follow it). */
  captures: readonly string[];
  baseline: string;
  /** The captures the view wanted to show (default: all of `captures`). */
  wanted?: readonly string[];
  /** Replaces the title ('No call stacks in these 2 captures'). */
  title?: ReactNode;
  /** Why a capture has none, when the capture says (a collector's note): replaces 'recorded without FLAG'. */
  reasons?: Readonly<Record<string, ReactNode>>;
  /** Shows a capture of the notebook that has the data instead (a view of one capture at a time). */
  onPick?: (id: string) => void;
  /** Captures not to offer to onPick (a difference view's other side). */
  exclude?: readonly string[];
  /** The URL of this notebook with a capture added (NotebookContext.withCapture). */
  withCapture?: (id: string) => string;
  testId?: string;
  /** More about recording it, below the next steps. */
  children?: ReactNode;
}

export function EmptyState(props: EmptyStateProps) {
  const list = useCaptureList();
  return <EmptyStateView {...props} library={list.data} />;
}

/** EmptyState with the library given (undefined while it loads: the captures are not named). */
export function EmptyStateView({ data, captures, baseline, wanted = captures, title, reasons = {}, onPick, exclude = [], withCapture, testId, children, library }: EmptyStateProps & { library: readonly CapturePublic[] | undefined }) {
  const kinds = dataKeys(data).map((k) => DATA_KINDS[k]);
  const noun = kindsNoun(data);
  const flags = kinds.map((k, i) => (
    <span key={k.flag}>
      {i > 0 && (i === kinds.length - 1 ? ' or ' : ', ')}
      <code>{k.flag}</code>
    </span>
  ));
  const byId = new Map((library ?? []).map((c) => [c.id, c]));
  const label = (id: string) => byId.get(id)?.label ?? id;
  const facts = emptyFacts(data, wanted, captures, library, label);
  const named = (id: string) => (
    <>
      <span className="swatch" style={{ background: captureColor(captures.indexOf(id)) }} />
      {label(id)}
      {id === baseline && <span className="base-badge">baseline</span>}
    </>
  );
  const others = onPick ? facts.inNotebook.filter((id) => !facts.missing.includes(id) && !exclude.includes(id)) : [];
  const listed = facts.missing.length > 1 || facts.missing.some((id) => reasons[id] !== undefined);
  return (
    <div className="empty-note" data-testid={testId} data-empty={dataKeys(data).join(' ')}>
      <h3>{title ?? facts.title}</h3>
      {listed && (
        <ul className="empty-missing">
          {facts.missing.map((id) => (
            <li key={id}>
              {named(id)}: <span className="muted">{reasons[id] ?? <>recorded without {flags}</>}</span>
            </li>
          ))}
        </ul>
      )}
      {kinds.map((kind, i) => (
        <p className="empty-next" key={kind.flag}>
          <span className="empty-step">{i === 0 ? 'Record with' : 'or'}</span> <code>{kind.command}</code> <span className="muted">({kind.what})</span>
        </p>
      ))}
      {others.length > 0 && (
        <p className="empty-next" data-testid="empty-pick">
          <span className="empty-step">Or show</span> {others.length === 1 ? 'the' : 'a'} capture of this notebook with {noun}:{' '}
          {others.map((id, i) => (
            <span key={id}>
              {i > 0 && ', '}
              <button type="button" className="link-button" onClick={() => onPick?.(id)}>
                {named(id)}
              </button>
            </span>
          ))}
        </p>
      )}
      {withCapture && facts.elsewhere.length > 0 && (
        <p className="empty-next" data-testid="empty-add">
          <span className="empty-step">Or add</span> a capture with {noun} from the library:{' '}
          {facts.elsewhere.map((c, i) => (
            <span key={c.id}>
              {i > 0 && ', '}
              <Link to={withCapture(c.id)} title={`${c.label} (${c.id}): add it to this notebook`}>
                {c.label}
              </Link>
            </span>
          ))}
          {facts.more > 0 && <span className="muted"> and {facts.more} more in the library</span>}
        </p>
      )}
      {children && <div className="empty-more muted">{children}</div>}
    </div>
  );
}

export interface MissingLineProps {
  data: DataKey;
  /** The captures without it (the others are shown): their label and colour; `reason`, when the
   *  capture says why it has none (a collector's note), replaces 'recorded without FLAG' for it. */
  missing: readonly { label: string; color: string; isBaseline?: boolean; reason?: ReactNode }[];
  /** What the view does without them ('compared all the same, without cells'). */
  consequence: ReactNode;
  testId?: string;
  /** More about recording it, after the command. */
  children?: ReactNode;
}

/** The one-line form of the empty state, beside data drawn for the other captures: what is
 *  missing, in which captures, and how to record it. */
export function MissingLine({ data, missing, consequence, testId, children }: MissingLineProps) {
  const kind = DATA_KINDS[data];
  const without = (
    <>
      recorded without <code>{kind.flag}</code>
    </>
  );
  // with a capture's own reason, each capture says its own; else one 'recorded without FLAG' for all
  const each = missing.some((c) => c.reason !== undefined);
  return (
    <p className="empty-line" data-testid={testId} data-empty={data}>
      <strong>No {kind.noun}</strong> in{' '}
      {missing.map((c, i) => (
        <span key={c.label}>
          {i > 0 && ', '}
          <span className="swatch" style={{ background: c.color }} />
          {c.label}
          {c.isBaseline && <span className="base-badge">baseline</span>}
          {each && <span className="muted"> ({c.reason ?? without})</span>}
        </span>
      ))}
      {each ? <span className="muted">: {consequence}.</span> : <span className="muted"> ({without}): {consequence}.</span>} <span className="empty-step">Record with</span> <code>{kind.command}</code>
      {children && <span className="muted"> {children}</span>}
    </p>
  );
}

export interface NoneSelectedProps {
  data: DataKey;
  /** Where: 'this selection of xfs-stacks', 'this track (thread 812)'. */
  where: ReactNode;
  /** What narrows the selection and how to widen it, one a step ('command fio: choose All tasks'). */
  steps: readonly string[];
  testId?: string;
}

/** The one-line form for data a capture has but the view's selection leaves none of: what is
 *  missing, where, and what to widen (no collector flag: recording is not the next step). */
export function NoneSelected({ data, where, steps, testId }: NoneSelectedProps) {
  const kind = DATA_KINDS[data];
  return (
    <p className="empty-line" data-testid={testId} data-empty={data}>
      <strong>No {kind.noun}</strong> in {where}
      <span className="muted">: the capture has them, this selection leaves none.</span>{' '}
      {steps.length > 0 ? (
        <>
          <span className="empty-step">Widen it:</span> {steps.join('; ')}.
        </>
      ) : (
        <span className="empty-step">Choose another run or range.</span>
      )}
    </p>
  );
}
