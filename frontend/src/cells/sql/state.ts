// State of a SQL cell and its URL form. Pure; tests in state.test.ts.
//
// URL form: `[chart=MARK:X:Y1,Y2;]SQL`, the column names percent-encoded (so ':' ',' ';' in a
// name cannot split the field). SQL text never starts with `chart=`, so the prefix is unambiguous.
// The default state (the starter query, no chart) encodes to ''.
import type { SqlChartSpec } from '../../api/client';

export type Mark = SqlChartSpec['mark'];
export const MARKS: readonly Mark[] = ['line', 'bar', 'scatter'];

export interface SqlState {
  sql: string;
  chart: SqlChartSpec | null;
}

export const SQL_MAX_CHARS = 20000;

export const DEFAULT_SQL = `SELECT c.label, f.jobname, f.ddir, count(*) AS repeats,
       avg(f.iops) AS iops, avg(f.clat_p99_ns) / 1e3 AS clat_p99_us
FROM fio_results f JOIN captures c USING (capture_id)
GROUP BY ALL
ORDER BY c.label, f.jobname, f.ddir`;

export const defaultSqlState: SqlState = { sql: DEFAULT_SQL, chart: null };

export function encodeSql(s: SqlState): string {
  if (s.sql === DEFAULT_SQL && !s.chart) return '';
  const chart = s.chart ? `chart=${s.chart.mark}:${encodeURIComponent(s.chart.x)}:${s.chart.y.map(encodeURIComponent).join(',')};` : '';
  return chart + s.sql;
}

export function decodeSql(text: string): SqlState | Error {
  if (text === '') return { ...defaultSqlState };
  let chart: SqlChartSpec | null = null;
  let sql = text;
  if (text.startsWith('chart=')) {
    const end = text.indexOf(';');
    if (end < 0) return new Error("chart= is not followed by ';' and the query");
    const spec = text.slice('chart='.length, end).split(':');
    sql = text.slice(end + 1);
    if (spec.length !== 3) return new Error('chart= is not MARK:X:Y1,Y2');
    const [mark = '', x = '', ys = ''] = spec;
    if (!(MARKS as readonly string[]).includes(mark)) return new Error(`chart mark '${mark}' is not one of ${MARKS.join(', ')}`);
    try {
      const y = ys.split(',').filter(Boolean).map(decodeURIComponent);
      if (!y.length || y.length > 8) return new Error('a chart needs 1 to 8 y columns');
      chart = { mark: mark as Mark, x: decodeURIComponent(x), y };
    } catch {
      return new Error('chart column names are not valid percent-encoding');
    }
    if (!chart.x) return new Error('the chart has no x column');
  }
  if (sql.length > SQL_MAX_CHARS) return new Error(`the query is ${sql.length} characters, at most ${SQL_MAX_CHARS}`);
  return { sql, chart };
}
