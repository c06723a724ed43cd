// The `detail` of an API error ({"error": ..., "detail": ...}) as lines a person can read.
// Pure; tests in errorDetail.test.ts.

const ORDER = ['file', 'line', 'column', 'field', 'path', 'member', 'job'];

/** [key, value] pairs for an object detail (file, line, field first), or one text for anything else; null when empty. */
export function describeDetail(detail: unknown): [string, string][] | string | null {
  if (detail === null || detail === undefined || detail === '') return null;
  if (typeof detail === 'string' || typeof detail === 'number' || typeof detail === 'boolean') return String(detail);
  if (Array.isArray(detail)) {
    // FastAPI validation errors: [{loc: [...], msg: "..."}]
    const msgs = detail.map((d) => {
      if (d && typeof d === 'object' && 'msg' in d) {
        const loc = 'loc' in d && Array.isArray(d.loc) ? d.loc.join('.') : '';
        return loc ? `${loc}: ${String(d.msg)}` : String(d.msg);
      }
      return typeof d === 'string' ? d : JSON.stringify(d);
    });
    return msgs.join('\n');
  }
  if (typeof detail === 'object') {
    const entries = Object.entries(detail as Record<string, unknown>).filter(([, v]) => v !== null && v !== undefined);
    if (!entries.length) return null;
    entries.sort(([a], [b]) => {
      const ia = ORDER.indexOf(a);
      const ib = ORDER.indexOf(b);
      return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib);
    });
    return entries.map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]);
  }
  return String(detail);
}
