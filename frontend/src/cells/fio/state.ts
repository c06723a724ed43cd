// State of the fio comparison table cell and its URL form. Pure; tests in state.test.ts.
//
// URL form: fields separated by ';', each `key=value`:
//   m=iops,bw,clat_p99   metrics shown, in this order (absent: every metric, server order)
//   strip=0              hide the per-repeat dot strips (absent: shown)
// The default state encodes to ''.

export interface FioTableState {
  metrics: string[] | null;
  strips: boolean;
}

export const defaultFioTableState: FioTableState = { metrics: null, strips: true };

const METRIC_KEY = /^[A-Za-z0-9_.-]{1,64}$/;

export function encodeFioTable(s: FioTableState): string {
  const parts: string[] = [];
  if (s.metrics) parts.push(`m=${s.metrics.join(',')}`);
  if (!s.strips) parts.push('strip=0');
  return parts.join(';');
}

export function decodeFioTable(text: string): FioTableState | Error {
  const state: FioTableState = { ...defaultFioTableState };
  if (text === '') return state;
  for (const part of text.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) return new Error(`'${part}' is not key=value`);
    const key = part.slice(0, eq);
    const value = part.slice(eq + 1);
    switch (key) {
      case 'm': {
        const ms = value.split(',').filter((x) => x !== '');
        const bad = ms.find((x) => !METRIC_KEY.test(x));
        if (bad !== undefined) return new Error(`'${bad}' is not a metric name`);
        if (ms.length === 0) return new Error('m= lists no metric');
        state.metrics = ms;
        break;
      }
      case 'strip':
        if (value !== '0' && value !== '1') return new Error(`strip must be 0 or 1, not '${value}'`);
        state.strips = value === '1';
        break;
      default:
        return new Error(`unknown field '${key}' (known: m, strip)`);
    }
  }
  return state;
}
