// The events cell's state: which traced event, which field to count by, how many values to show.
// URL form: "e=xfs:xfs_ail_insert;f=new_lsn;top=20" (every part optional; the default is '').
import { formatValue } from '../../logic/format';

export interface EventsState {
  event: string | null; // sys:name; null: the first event the captures traced
  field: string | null; // a column of the event's table; null: counts of the event alone
  top: number;
}

export const defaultEventsState: EventsState = { event: null, field: null, top: 20 };

const EVENT = /^[A-Za-z0-9_]+:[A-Za-z0-9_]+$/;
const FIELD = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function encodeEvents(s: EventsState): string {
  const parts: string[] = [];
  if (s.event) parts.push(`e=${s.event}`);
  if (s.field) parts.push(`f=${s.field}`);
  if (s.top !== defaultEventsState.top) parts.push(`top=${s.top}`);
  return parts.join(';');
}

export function decodeEvents(text: string): EventsState | Error {
  const state: EventsState = { ...defaultEventsState };
  if (!text) return state;
  for (const part of text.split(';')) {
    const i = part.indexOf('=');
    const k = i < 0 ? part : part.slice(0, i);
    const v = i < 0 ? '' : part.slice(i + 1);
    if (k === 'e') {
      if (!EVENT.test(v)) return new Error(`e must be a tracepoint sys:name, not '${v}'`);
      state.event = v;
    } else if (k === 'f') {
      if (!FIELD.test(v)) return new Error(`f must be a field name, not '${v}'`);
      state.field = v;
    } else if (k === 'top') {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1 || n > 1000) return new Error(`top must be 1-1000, not '${v}'`);
      state.top = n;
    } else return new Error(`unknown part '${k}' (e, f, top)`);
  }
  return state;
}

/** An XFS log sequence number (a field named *lsn) as the kernel prints it: cycle/block (cycle << 32 | block). */
export function showValue(field: string | null, v: string): string {
  if (!field || !/lsn$/.test(field) || !/^-?\d+$/.test(v)) return v;
  const n = BigInt(v);
  return `${(n >> 32n).toString()}/${(n & 0xffffffffn).toString()}`;
}

/** A mean of events per run in the app's number rule (logic/format.ts, count-like): '1.655k', '12.5'; absent '–'. */
export function perRunText(n: number | null | undefined): string {
  return n === null || n === undefined ? '–' : formatValue(n, '');
}

/** Events per second in the app's number rule ('/s', SI prefixes): '552/s', '40.81k/s'; absent '–'. */
export function perSecondText(n: number | null | undefined): string {
  return n === null || n === undefined ? '–' : formatValue(n, '/s');
}
