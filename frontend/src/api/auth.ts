// The access token for writes (uploads, notebook saves), when the server has one
// (`iolens serve --token-file FILE` or IOLENS_TOKEN). Reads never need it. Kept in this
// browser's localStorage; sent as `Authorization: Bearer TOKEN` on writes only.
const KEY = 'iolens.token';

export function getToken(): string | null {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function setToken(token: string | null): void {
  try {
    if (token) localStorage.setItem(KEY, token);
    else localStorage.removeItem(KEY);
  } catch {
    /* private mode: the token lasts this page only */
  }
  memory = token;
}

let memory: string | null = null;

export function authHeaders(): Record<string, string> {
  const t = getToken() ?? memory;
  return t ? { Authorization: `Bearer ${t}` } : {};
}

type Asker = (reason: string) => Promise<boolean>;
let asker: Asker | null = null;

/** The token dialog registers itself here (App mounts it once). */
export function setTokenAsker(a: Asker | null): void {
  asker = a;
}

/** Ask the user for the token; true when one was entered (then retry the write). */
export function askForToken(reason: string): Promise<boolean> {
  return asker ? asker(reason) : Promise.resolve(false);
}
