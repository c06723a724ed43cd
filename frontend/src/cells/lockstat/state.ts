// State of the lock contention cell and its URL form. Pure; tests in state.test.ts.
//
// URL form: fields separated by ';', each `key=value`:
//   v=top            show one capture's top classes (absent: the comparison)
//   by=contentions   order of the top table: wait_total (absent), contentions, wait_avg
//   cap=ID           the capture of the top table (absent: the baseline)
// The default state encodes to ''.

export type LockStatView = 'cmp' | 'top';
export type LockTopKey = 'wait_total' | 'contentions' | 'wait_avg';

export interface LockStatState {
  view: LockStatView;
  by: LockTopKey;
  cap: string | null;
}

export const defaultLockStatState: LockStatState = { view: 'cmp', by: 'wait_total', cap: null };

const BY: readonly LockTopKey[] = ['wait_total', 'contentions', 'wait_avg'];
// Same rule as the URL's capture ids (state/url.ts), kept here so that cells do not import the URL module.
const CAPTURE_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function encodeLockStat(s: LockStatState): string {
  const parts: string[] = [];
  if (s.view !== 'cmp') parts.push(`v=${s.view}`);
  if (s.by !== 'wait_total') parts.push(`by=${s.by}`);
  if (s.cap) parts.push(`cap=${s.cap}`);
  return parts.join(';');
}

export function decodeLockStat(text: string): LockStatState | Error {
  const state: LockStatState = { ...defaultLockStatState };
  if (text === '') return state;
  for (const part of text.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) return new Error(`'${part}' is not key=value`);
    const key = part.slice(0, eq);
    const value = part.slice(eq + 1);
    switch (key) {
      case 'v':
        if (value !== 'cmp' && value !== 'top') return new Error(`v must be cmp or top, not '${value}'`);
        state.view = value;
        break;
      case 'by':
        if (!(BY as readonly string[]).includes(value)) return new Error(`by must be one of ${BY.join(', ')}, not '${value}'`);
        state.by = value as LockTopKey;
        break;
      case 'cap':
        if (!CAPTURE_ID.test(value)) return new Error(`cap: '${value}' is not a capture id`);
        state.cap = value;
        break;
      default:
        return new Error(`unknown field '${key}' (known: v, by, cap)`);
    }
  }
  return state;
}
