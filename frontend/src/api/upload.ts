// Bundle upload with progress. fetch() cannot report upload progress, so this one module uses
// XMLHttpRequest; the answer is typed with the same generated schema as the rest of the client.
import { authHeaders } from './auth';
import { toApiError, type ApiError, type CaptureCreated } from './client';

export type UploadProgress =
  | { phase: 'sending'; loaded: number; total: number }
  /** Every byte is sent; the server is checking and ingesting the bundle. */
  | { phase: 'ingesting'; total: number };

export type UploadOutcome =
  | { ok: true; status: number; capture: CaptureCreated }
  | { ok: false; error: ApiError };

export interface UploadHandle {
  done: Promise<UploadOutcome>;
  abort(): void;
}

/** POST one bundle to /api/captures (multipart field `file`). Never rejects: failures are outcomes. */
export function uploadBundle(
  file: File,
  onProgress: (p: UploadProgress) => void,
  url = '/api/captures',
): UploadHandle {
  const xhr = new XMLHttpRequest();
  const done = new Promise<UploadOutcome>((resolve) => {
    xhr.open('POST', url);
    xhr.responseType = 'text';
    xhr.setRequestHeader('Accept', 'application/json');
    for (const [k, v] of Object.entries(authHeaders())) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => {
      const total = e.lengthComputable ? e.total : file.size;
      onProgress({ phase: 'sending', loaded: e.loaded, total });
    };
    xhr.upload.onload = () => onProgress({ phase: 'ingesting', total: file.size });
    xhr.onload = () => resolve(parseUploadResponse(xhr.status, xhr.responseText, xhr.statusText));
    xhr.onerror = () =>
      resolve({ ok: false, error: toApiError(0, 'Network error: the upload did not reach the iolens server') });
    xhr.onabort = () => resolve({ ok: false, error: toApiError(0, 'Upload cancelled') });
    const form = new FormData();
    form.append('file', file, file.name);
    onProgress({ phase: 'sending', loaded: 0, total: file.size });
    xhr.send(form);
  });
  return { done, abort: () => xhr.abort() };
}

/** Pure: the server's answer to an upload, as an outcome. Exported for tests. */
export function parseUploadResponse(status: number, text: string, statusText = ''): UploadOutcome {
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON: keep the text */
  }
  if (status >= 200 && status < 300 && body && typeof body === 'object' && 'id' in body) {
    return { ok: true, status, capture: body as CaptureCreated };
  }
  if (status >= 200 && status < 300) {
    return { ok: false, error: toApiError(status, 'The server accepted the upload but sent no capture id') };
  }
  return { ok: false, error: toApiError(status, body, statusText) };
}
