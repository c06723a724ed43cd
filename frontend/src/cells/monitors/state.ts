// The monitors cell's state: the source shown (null: all) and the key drawn over time.
// URL form: "src=vmstat;k=vmstat/pgfault" (every part optional; the default is '').

export interface MonitorsState {
  source: string | null;
  key: string | null; // "source/key" of the chart; null: the first row
}

export const defaultMonitorsState: MonitorsState = { source: null, key: null };
export const SOURCES = ['vmstat', 'meminfo', 'stat', 'xfs', 'ext4', 'slabinfo', 'iostat', 'vmstat-cmd'] as const;

export function encodeMonitors(s: MonitorsState): string {
  const parts: string[] = [];
  if (s.source) parts.push(`src=${s.source}`);
  if (s.key) parts.push(`k=${encodeURIComponent(s.key)}`);
  return parts.join(';');
}

export function decodeMonitors(text: string): MonitorsState | Error {
  const state: MonitorsState = { ...defaultMonitorsState };
  if (!text) return state;
  for (const part of text.split(';')) {
    const i = part.indexOf('=');
    const k = i < 0 ? part : part.slice(0, i);
    const v = i < 0 ? '' : part.slice(i + 1);
    if (k === 'src') {
      if (!(SOURCES as readonly string[]).includes(v)) return new Error(`src must be one of ${SOURCES.join(', ')}, not '${v}'`);
      state.source = v;
    } else if (k === 'k') {
      let key: string;
      try {
        key = decodeURIComponent(v);
      } catch {
        return new Error(`k is not a valid key: '${v}'`);
      }
      const src = key.split('/', 1)[0]!;
      if (!(SOURCES as readonly string[]).includes(src) || key.length <= src.length + 1) return new Error(`k must be SOURCE/KEY, not '${key}'`);
      state.key = key;
    } else return new Error(`unknown part '${k}' (src, k)`);
  }
  return state;
}
