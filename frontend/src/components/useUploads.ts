import { useCallback, useRef, useState } from 'react';
import type { ApiError, CaptureCreated } from '../api/client';
import { askForToken } from '../api/auth';
import { uploadBundle, type UploadHandle } from '../api/upload';

export interface UploadItem {
  key: number;
  name: string;
  size: number;
  phase: 'sending' | 'ingesting' | 'done' | 'failed';
  loaded: number;
  total: number;
  capture?: CaptureCreated;
  error?: ApiError;
}

/** Uploads of this page: one XHR per file, all at once, each with its own progress and result. */
export function useUploads(onDone: (c: CaptureCreated) => void) {
  const [items, setItems] = useState<UploadItem[]>([]);
  const next = useRef(1);
  const handles = useRef(new Map<number, UploadHandle>());
  const doneRef = useRef(onDone);
  doneRef.current = onDone;

  const update = (key: number, patch: Partial<UploadItem>) =>
    setItems((list) => list.map((it) => (it.key === key ? { ...it, ...patch } : it)));

  const start = useCallback((file: File, key: number, retried: boolean) => {
    const h = uploadBundle(file, (p) => {
      if (p.phase === 'sending') update(key, { phase: 'sending', loaded: p.loaded, total: p.total });
      else update(key, { phase: 'ingesting', loaded: p.total, total: p.total });
    });
    handles.current.set(key, h);
    void h.done.then(async (out) => {
      handles.current.delete(key);
      if (out.ok) {
        update(key, { phase: 'done', capture: out.capture, loaded: file.size, total: file.size });
        doneRef.current(out.capture);
        return;
      }
      // The server wants its access token: ask once, then send the file again.
      if (out.error.status === 401 && !retried && (await askForToken('Uploads to this server need its access token.'))) {
        start(file, key, true);
        return;
      }
      update(key, { phase: 'failed', error: out.error });
    });
  }, []);

  const add = useCallback(
    (files: Iterable<File>) => {
      for (const file of files) {
        const key = next.current++;
        setItems((list) => [...list, { key, name: file.name, size: file.size, phase: 'sending', loaded: 0, total: file.size }]);
        start(file, key, false);
      }
    },
    [start],
  );

  const cancel = useCallback((key: number) => handles.current.get(key)?.abort(), []);
  const clearFinished = useCallback(() => setItems((list) => list.filter((i) => i.phase === 'sending' || i.phase === 'ingesting')), []);
  return { items, add, cancel, clearFinished };
}
