import { useEffect, useMemo, useRef, useState } from 'react';
import type { ApiError, CaptureCreated } from '../api/client';
import { askForToken } from '../api/auth';
import { parseTags, previewLoose, uploadLoose, type LoosePreview } from '../api/loose';
import type { UploadHandle } from '../api/upload';
import { formatBytes } from '../logic/format';
import { Link } from './router';
import { ErrorBox } from './ErrorBox';

/** The capture's default name: what the files' names share ("6.18-xfs-" of 6.18-xfs-fio.json...). */
export function defaultLabel(names: string[]): string {
  if (!names.length) return '';
  let p = names[0]!;
  for (const n of names.slice(1)) {
    let i = 0;
    while (i < p.length && i < n.length && p[i] === n[i]) i++;
    p = p.slice(0, i);
  }
  p = p.replace(/\.[^.]*$/, '').replace(/[-_.\s]+$/, '');
  return p.length >= 3 ? p : '';
}

type Phase = { kind: 'idle' } | { kind: 'sending'; loaded: number; total: number } | { kind: 'ingesting' } | { kind: 'done'; capture: CaptureCreated } | { kind: 'failed'; error: ApiError };

/** Loose files -> one capture: what the server recognised in each, where it goes, what is unknown, then upload. */
export function LooseFilesPanel({ files, onAdd, onRemove, onClose, onUploaded }: { files: File[]; onAdd: (f: File[]) => void; onRemove: (f: File) => void; onClose: () => void; onUploaded: (c: CaptureCreated) => void }) {
  const [preview, setPreview] = useState<LoosePreview | null>(null);
  const [previewError, setPreviewError] = useState<ApiError | null>(null);
  const [label, setLabel] = useState(() => defaultLabel(files.map((f) => f.name)));
  const [kernel, setKernel] = useState('');
  const [tags, setTags] = useState('');
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  const handle = useRef<UploadHandle | null>(null);
  const addRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    const ac = new AbortController();
    setPreview(null);
    setPreviewError(null);
    if (!files.length) return;
    previewLoose(files, ac.signal).then(setPreview, (e: unknown) => {
      if (!(e instanceof DOMException && e.name === 'AbortError')) setPreviewError(e as ApiError);
    });
    return () => ac.abort();
  }, [files]);

  const badTags = useMemo(() => parseTags(tags).bad, [tags]);
  const refused = preview ? preview.files.filter((f) => f.kind === null) : [];
  // a refused file's problem is already on its row
  const otherProblems = preview ? preview.problems.filter((p) => !refused.some((f) => p.startsWith(`${f.file}: not a file iolens reads`))) : [];
  const busy = phase.kind === 'sending' || phase.kind === 'ingesting';
  const blocked = !preview || !label.trim() || refused.length > 0 || preview.problems.length > 0 || badTags.length > 0 || busy || phase.kind === 'done';
  const why = !label.trim()
    ? 'Name the capture first'
    : refused.length
      ? `Remove the files iolens does not read (${refused.map((f) => f.file).join(', ')})`
      : preview?.problems.length
        ? 'See the problems above'
        : badTags.length
          ? `Tags are K=V: ${badTags.join(', ')}`
          : '';

  const upload = (retried = false) => {
    const h = uploadLoose(files, { label: label.trim(), kernel, tags }, (p) =>
      setPhase(p.phase === 'sending' ? { kind: 'sending', loaded: p.loaded, total: p.total } : { kind: 'ingesting' }),
    );
    handle.current = h;
    void h.done.then(async (out) => {
      handle.current = null;
      if (out.ok) {
        setPhase({ kind: 'done', capture: out.capture });
        onUploaded(out.capture);
        return;
      }
      if (out.error.status === 401 && !retried && (await askForToken('Uploads to this server need its access token.'))) {
        upload(true);
        return;
      }
      setPhase({ kind: 'failed', error: out.error });
    });
  };

  return (
    <section className="loose-panel" aria-label="Loose files" data-testid="loose-panel">
      <div className="uploads-head">
        <h2>
          Loose files → one capture <span className="muted count">{files.length} file{files.length === 1 ? '' : 's'}</span>
        </h2>
        <div className="loose-actions">
          <input
            ref={addRef}
            type="file"
            multiple
            hidden
            data-testid="loose-add-input"
            onChange={(e) => {
              if (e.target.files?.length) onAdd(Array.from(e.target.files));
              e.target.value = '';
            }}
          />
          <button type="button" className="link-button" disabled={busy} onClick={() => addRef.current?.click()}>
            Add files…
          </button>
          <button type="button" className="link-button" disabled={busy} onClick={onClose}>
            Close
          </button>
        </div>
      </div>
      <p className="muted hint">
        Each file is recognised by its content, not its name. Each fio result is one run (a repeat), in the order listed; the other files go with them. Nothing is stored until you press Upload.
      </p>
      {previewError && <ErrorBox error={previewError} title="Cannot recognise the files" />}
      <table className="data-table loose-table">
        <thead>
          <tr>
            <th>File</th>
            <th className="num">Size</th>
            <th>Recognised as</th>
            <th>Run</th>
            <th>Why</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {files.map((f, i) => {
            const seen = preview?.files[i];
            return (
              <tr key={`${f.name}-${i}`} className={seen && seen.kind === null ? 'loose-refused' : undefined} data-testid="loose-file">
                <td className="mono" title={f.name}>
                  {f.name}
                </td>
                <td className="num">{formatBytes(f.size)}</td>
                <td>{!seen ? <span className="muted">…</span> : seen.kind ? <span className="kind-badge" title={seen.kind}>{seen.title ?? seen.kind}</span> : <span className="status-bad">not read by iolens</span>}</td>
                <td className="mono">{seen ? (seen.kind ? (seen.run ?? 'capture') : '–') : ''}</td>
                <td className="muted loose-reason">{seen?.reason}</td>
                <td>
                  <button type="button" className="link-button" disabled={busy || phase.kind === 'done'} onClick={() => onRemove(f)} aria-label={`Remove ${f.name}`}>
                    Remove
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {preview && otherProblems.length > 0 && (
        <ul className="loose-problems" role="alert">
          {otherProblems.map((p) => (
            <li key={p}>✗ {p}</li>
          ))}
        </ul>
      )}
      {preview && preview.notes.length > 0 && (
        <ul className="loose-notes muted" aria-label="What the capture will not know">
          {preview.notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      )}
      <div className="loose-form">
        <label>
          Capture name <input value={label} onChange={(e) => setLabel(e.target.value)} placeholder="6.18-xfs (required)" maxLength={200} aria-label="Capture name" required />
        </label>
        <label>
          Kernel <input value={kernel} onChange={(e) => setKernel(e.target.value)} placeholder="6.18.44 (if the files do not say)" aria-label="Kernel release" />
        </label>
        <label>
          Tags <input value={tags} onChange={(e) => setTags(e.target.value)} placeholder="fs=xfs disk=nvme" aria-label="Tags" />
        </label>
        <button type="button" className="button primary" disabled={blocked} title={why || undefined} onClick={() => upload()}>
          Upload as one capture
        </button>
        {busy && (
          <span className="muted num">
            {phase.kind === 'sending' ? `${formatBytes(phase.loaded)} / ${formatBytes(phase.total)}` : 'making the bundle and ingesting…'}{' '}
            <button type="button" className="link-button" onClick={() => handle.current?.abort()}>
              Cancel
            </button>
          </span>
        )}
      </div>
      {phase.kind === 'failed' && <ErrorBox error={phase.error} title="The files were not ingested" />}
      {phase.kind === 'done' && (
        <p className="status-good" data-testid="loose-done">
          {phase.capture.created ? 'New capture' : 'Already present'} <Link to={`/captures/${phase.capture.id}`}>{phase.capture.label}</Link> ({phase.capture.runs} run
          {phase.capture.runs === 1 ? '' : 's'})
          {(phase.capture.warnings ?? []).map((w) => (
            <span key={w} className="upload-warnings">
              {' '}
              ⚠ {w}
            </span>
          ))}
        </p>
      )}
    </section>
  );
}
