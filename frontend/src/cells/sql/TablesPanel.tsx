import { useState } from 'react';
import { useSqlTables } from '../../api/queries';
import { ErrorBox } from '../../components/ErrorBox';

/** The tables SQL cells can read, with their columns, documented from the store's schema files (store/schema/), grouped by domain. Click a name to insert it. */
export function TablesPanel({ onInsert, onClose }: { onInsert: (text: string) => void; onClose: () => void }) {
  const q = useSqlTables();
  const data = q.data;
  const [open, setOpen] = useState<string | null>('fio_results');
  return (
    <aside className="tables-panel" aria-label="Tables">
      <div className="tables-head">
        <strong>Tables</strong>
        <span className="muted small">click a name to insert it</span>
        <div className="spacer" />
        <button type="button" className="icon-button" aria-label="Close tables" onClick={onClose}>
          ×
        </button>
      </div>
      {q.error && <ErrorBox error={q.error} title="Tables" />}
      {data && (
        <>
          <ul className="tables-notes muted small">
            {data.notes.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
          {data.domains.map((d) => (
            <section key={d.name} className="tables-domain" aria-label={d.title}>
              <h4 className="tables-domain-title">{d.title}</h4>
              {data.tables
                .filter((t) => t.domain === d.name)
                .map((t) => (
                  <div key={t.name} className="table-doc">
                    <div className="table-doc-head">
                      <button type="button" className="disclosure" aria-expanded={open === t.name} onClick={() => setOpen(open === t.name ? null : t.name)}>
                        {open === t.name ? '▾' : '▸'}
                      </button>
                      <button type="button" className="link-button mono" onClick={() => onInsert(t.name)} title={`Insert ${t.name}`}>
                        {t.name}
                      </button>
                    </div>
                    <p className="muted small table-desc">{t.description}</p>
                    {open === t.name && (
                      <table className="columns-doc">
                        <tbody>
                          {t.columns.map((c) => (
                            <tr key={c.name}>
                              <td>
                                <button type="button" className="link-button mono" onClick={() => onInsert(c.name)}>
                                  {c.name}
                                </button>
                              </td>
                              <td className="muted mono small">{c.type.toLowerCase()}</td>
                              <td className="small">{c.description}</td>
                            </tr>
                          ))}
                        </tbody>
                      </table>
                    )}
                  </div>
                ))}
            </section>
          ))}
        </>
      )}
    </aside>
  );
}
