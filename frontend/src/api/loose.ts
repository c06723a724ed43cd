// Loose files (fio JSON, perf script, blktrace, folded stacks...) made into one capture by the
// server: a preview of what each file is (its first bytes only), then the upload of them all.
// The server's code is the same as `iolens bundle` (backend ingest/loose.py).
import { authHeaders } from './auth';
import { reach, toApiError, type ApiError, type Schemas } from './client';
import { parseUploadResponse, type UploadHandle, type UploadProgress } from './upload';

export type LoosePreview = Schemas['LoosePreview'];
export type LooseFileSeen = Schemas['LooseFileSeen'];

/** How much of each file the preview sends: the server's recognition reads this prefix. */
export const PREVIEW_BYTES = 64 * 1024;

/** What the server makes of these files (kind, reason, run), from their first bytes. */
export async function previewLoose(files: File[], signal?: AbortSignal): Promise<LoosePreview> {
  const form = new FormData();
  for (const f of files) form.append('files', f.slice(0, PREVIEW_BYTES), f.name);
  form.append('sizes', JSON.stringify(files.map((f) => f.size)));
  const r = await reach('/api/loose/preview', { method: 'POST', body: form, headers: { Accept: 'application/json' }, signal });
  const text = await r.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    /* keep the text */
  }
  if (!r.ok) throw toApiError(r.status, body, r.statusText);
  return body as LoosePreview;
}

export interface LooseForm {
  label: string;
  kernel: string;
  tags: string; // "K=V K=V"
}

/** "fs=xfs, disk=nvme" -> {fs: "xfs", disk: "nvme"}; the words that are not K=V. */
export function parseTags(text: string): { tags: Record<string, string>; bad: string[] } {
  const tags: Record<string, string> = {};
  const bad: string[] = [];
  for (const word of text.split(/[\s,]+/).filter(Boolean)) {
    const i = word.indexOf('=');
    if (i <= 0) bad.push(word);
    else tags[word.slice(0, i)] = word.slice(i + 1);
  }
  return { tags, bad };
}

/** POST every file to /api/captures/loose with the capture's name: one bundle, ingested. */
export function uploadLoose(files: File[], form: LooseForm, onProgress: (p: UploadProgress) => void): UploadHandle {
  const xhr = new XMLHttpRequest();
  const total = files.reduce((n, f) => n + f.size, 0);
  const done = new Promise<{ ok: true; status: number; capture: Schemas['CaptureCreated'] } | { ok: false; error: ApiError }>((resolve) => {
    xhr.open('POST', '/api/captures/loose');
    xhr.responseType = 'text';
    xhr.setRequestHeader('Accept', 'application/json');
    for (const [k, v] of Object.entries(authHeaders())) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => onProgress({ phase: 'sending', loaded: e.loaded, total: e.lengthComputable ? e.total : total });
    xhr.upload.onload = () => onProgress({ phase: 'ingesting', total });
    xhr.onload = () => resolve(parseUploadResponse(xhr.status, xhr.responseText, xhr.statusText));
    xhr.onerror = () => resolve({ ok: false, error: toApiError(0, 'Network error: the upload did not reach the iolens server') });
    xhr.onabort = () => resolve({ ok: false, error: toApiError(0, 'Upload cancelled') });
    const body = new FormData();
    for (const f of files) body.append('files', f, f.name);
    body.append('label', form.label);
    if (form.kernel.trim()) body.append('kernel', form.kernel.trim());
    body.append('tags', JSON.stringify(parseTags(form.tags).tags));
    onProgress({ phase: 'sending', loaded: 0, total });
    xhr.send(body);
  });
  return { done, abort: () => xhr.abort() };
}
