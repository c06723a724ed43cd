import { useEffect, useMemo, useRef, useState } from 'react';
import type { SqlResult } from '../../api/client';
import { sqlKey, useSql } from '../../api/queries';
import { invalidate } from '../../api/useQuery';
import { SqlChart } from '../../charts/SqlChart';
import { cellText, numericColumns } from '../../charts/sqlChart';
import { ErrorBox } from '../../components/ErrorBox';
import { formatRaw } from '../../logic/format';
import type { CellProps } from '../types';
import { MARKS, SQL_MAX_CHARS, type Mark, type SqlState } from './state';
import { TablesPanel } from './TablesPanel';

const SHOWN_ROWS = 200;

export function SqlCell({ ctx, state, setState, full }: CellProps<SqlState>) {
  const [draft, setDraft] = useState(state.sql);
  const [tables, setTables] = useState(false);
  const ref = useRef<HTMLTextAreaElement>(null);
  useEffect(() => setDraft(state.sql), [state.sql]);
  const q = useSql(state.sql.trim() ? state.sql : null, ctx.captures);
  const dirty = draft !== state.sql;

  const run = () => {
    if (dirty) setState({ ...state, sql: draft });
    else invalidate(sqlKey(state.sql, ctx.captures));
  };
  const insert = (text: string) => {
    const ta = ref.current;
    if (!ta) return setDraft((d) => d + text);
    const { selectionStart: a, selectionEnd: b } = ta;
    const next = draft.slice(0, a) + text + draft.slice(b);
    setDraft(next);
    requestAnimationFrame(() => {
      ta.focus();
      ta.setSelectionRange(a + text.length, a + text.length);
    });
  };

  return (
    <div className={`sql-cell${tables ? ' with-tables' : ''}`}>
      <div className="sql-editor">
        <textarea
          ref={ref}
          className="sql-input"
          value={draft}
          spellCheck={false}
          maxLength={SQL_MAX_CHARS}
          rows={Math.min(14, Math.max(3, draft.split('\n').length))}
          aria-label="SQL query"
          placeholder="SELECT … FROM fio_results JOIN captures USING (capture_id)"
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
              e.preventDefault();
              run();
            }
            if (e.key.toLowerCase() === 's' && (e.ctrlKey || e.metaKey) && dirty) setState({ ...state, sql: draft });
          }}
        />
        <div className="cell-toolbar sql-toolbar">
          <button type="button" className={`button small${dirty ? ' primary' : ''}`} onClick={run} title="Run the query (Ctrl+Enter)">
            Run <kbd>Ctrl</kbd>
            <kbd>↵</kbd>
          </button>
          {dirty && (
            <button type="button" className="link-button" onClick={() => setDraft(state.sql)}>
              Revert
            </button>
          )}
          <ChartControls state={state} setState={setState} result={q.data} />
          <div className="spacer" />
          <Status result={q.data} loading={q.loading} />
          <button type="button" className={`toggle${tables ? ' on' : ''}`} aria-pressed={tables} onClick={() => setTables(!tables)} title="Tables and columns you can query">
            Tables
          </button>
        </div>
        {q.error && <ErrorBox error={q.error} title={q.error.status === 400 ? 'The query did not run' : 'SQL'} />}
        {q.data && state.chart && (
          <SqlChart columns={q.data.columns.map((c) => c.name)} rows={q.data.rows} spec={state.chart} width={full ? 1100 : 720} />
        )}
        {q.data && <ResultTable result={q.data} />}
        <p className="muted small sql-scope">
          Tables show the rows of this notebook's {ctx.captures.length} captures only. Read-only; one SELECT.
        </p>
      </div>
      {tables && <TablesPanel onInsert={insert} onClose={() => setTables(false)} />}
    </div>
  );
}

function Status({ result, loading }: { result: SqlResult | undefined; loading: boolean }) {
  if (loading) return <span className="muted small">Running…</span>;
  if (!result) return null;
  const n = result.rows.length;
  return (
    <span className="muted small num" title={result.truncated ? (result.truncated_by === 'bytes' ? `Only the rows that fit in ${(result.max_bytes / 1048576).toFixed(0)} MiB of JSON are returned` : `Only the first ${result.max_rows} rows are returned`) : undefined}>
      {result.truncated ? `first ${n} rows` : `${n} row${n === 1 ? '' : 's'}`} · {result.elapsed_ms.toFixed(1)} ms
    </span>
  );
}

function ChartControls({ state, setState, result }: { state: SqlState; setState: (s: SqlState) => void; result: SqlResult | undefined }) {
  const columns = result?.columns.map((c) => c.name) ?? [];
  const numeric = useMemo(() => (result ? numericColumns(columns, result.rows) : []), [result]); // eslint-disable-line react-hooks/exhaustive-deps
  const chart = state.chart;
  const setMark = (m: string) => {
    if (m === '') return setState({ ...state, chart: null });
    const x = chart?.x ?? columns[0] ?? '';
    // y: a measurement rather than a count when there is one (DOUBLE before integer columns)
    const doubles = numeric.filter((c) => c !== x && /DOUBLE|FLOAT|DECIMAL/i.test(result?.columns.find((k) => k.name === c)?.type ?? ''));
    const y = chart?.y ?? [doubles[0] ?? numeric.find((c) => c !== x) ?? numeric[0] ?? columns[1] ?? x];
    setState({ ...state, chart: { mark: m as Mark, x, y } });
  };
  return (
    <span className="chart-controls">
      <label className="select-label">
        Chart
        <select value={chart?.mark ?? ''} onChange={(e) => setMark(e.target.value)} aria-label="Chart">
          <option value="">table only</option>
          {MARKS.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </select>
      </label>
      {chart && (
        <>
          <label className="select-label">
            x
            <select value={chart.x} aria-label="x column" onChange={(e) => setState({ ...state, chart: { ...chart, x: e.target.value } })}>
              {[...new Set([chart.x, ...columns])].map((c) => (
                <option key={c} value={c}>
                  {c}
                </option>
              ))}
            </select>
          </label>
          <span className="y-picker" role="group" aria-label="y columns">
            y
            {[...new Set([...chart.y, ...numeric])].map((c) => (
              <label key={c} className="check-label">
                <input
                  type="checkbox"
                  checked={chart.y.includes(c)}
                  onChange={() => {
                    const y = chart.y.includes(c) ? chart.y.filter((v) => v !== c) : [...chart.y, c].slice(0, 8);
                    if (y.length) setState({ ...state, chart: { ...chart, y } });
                  }}
                />
                {c}
              </label>
            ))}
          </span>
        </>
      )}
    </span>
  );
}

function ResultTable({ result }: { result: SqlResult }) {
  const [all, setAll] = useState(false);
  const columns = result.columns.map((c) => c.name);
  const numeric = new Set(numericColumns(columns, result.rows));
  const rows = all ? result.rows : result.rows.slice(0, SHOWN_ROWS);
  if (!result.rows.length) return <p className="muted empty-result">The query returned no rows.</p>;
  return (
    <div className="table-scroll sql-result">
      <table className="data-table">
        <thead>
          <tr>
            {result.columns.map((c) => (
              <th key={c.name} className={numeric.has(c.name) ? 'num' : undefined} title={c.type}>
                {c.name} <span className="col-type">{c.type.toLowerCase()}</span>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}>
              {r.map((v, j) => (
                <td key={j} className={numeric.has(columns[j] ?? '') ? 'num' : 'mono-ish'}>
                  {v === null ? <span className="muted">NULL</span> : typeof v === 'number' ? formatRaw(v) : cellText(v)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {result.rows.length > SHOWN_ROWS && (
        <button type="button" className="link-button" onClick={() => setAll(!all)}>
          {all ? `Show the first ${SHOWN_ROWS}` : `Show all ${result.rows.length} rows`}
        </button>
      )}
    </div>
  );
}
