import { lazyCell } from '../lazy';
import { defineCell } from '../types';
import { decodeSql, defaultSqlState, encodeSql, type SqlState } from './state';

/** A read-only query over the notebook's captures, as a table and optionally a chart. */
export const sqlCell = defineCell<SqlState>({
  kind: 'sql',
  title: 'SQL',
  description: "Query the captures' tables (read-only, time-limited); table or line/bar/scatter chart",
  defaultState: defaultSqlState,
  encode: encodeSql,
  decode: decodeSql,
  ...lazyCell(() => import('./SqlCell').then((m) => m.SqlCell)),
});
