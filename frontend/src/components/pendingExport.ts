// An export asked for on an unsaved notebook: the menu saves the notebook first, and the save
// opens the new version's page (/n/ID), which mounts a new page and a new menu; the menu that was
// asked is gone with its state. The request waits here, outside React, until the menu of that
// version takes it (whether it mounted before or after the request was made).

export type ExportKind = 'text' | 'html';

let pending: { id: string; kind: ExportKind } | null = null;
const listeners = new Set<(id: string, kind: ExportKind) => boolean>();

/** Ask for an export of version `id`: run now by a menu of that version, else by the next one. */
export function requestExport(id: string, kind: ExportKind): void {
  for (const l of listeners) if (l(id, kind)) return;
  pending = { id, kind }; // only the latest request waits
}

/**
 * The menu of version `id` takes its exports: one waiting now, and those asked while it is
 * mounted. `run` is called once per request. Returns the unsubscribe function.
 */
export function takeExports(id: string, run: (kind: ExportKind) => void): () => void {
  const listener = (for_: string, kind: ExportKind) => {
    if (for_ !== id) return false;
    run(kind);
    return true;
  };
  listeners.add(listener);
  if (pending && pending.id === id) {
    const { kind } = pending;
    pending = null;
    run(kind);
  }
  return () => listeners.delete(listener);
}
