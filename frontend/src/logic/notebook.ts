// Words a new notebook starts with. Pure; tests in notebook.test.ts.
import type { CapturePublic } from '../api/client';

/** 'ext4 vs xfs' style title: the other captures' labels, then 'vs' the baseline's. */
export function defaultTitle(labels: readonly string[], baselineLabel: string): string {
  const others = labels.filter((l) => l !== baselineLabel);
  if (!others.length) return baselineLabel;
  const head = others.length > 3 ? `${others.slice(0, 3).join(', ')} and ${others.length - 3} more` : others.join(', ');
  return `${head} vs ${baselineLabel}`;
}

function facts(c: CapturePublic): string {
  const parts = [c.kernel ? `kernel \`${c.kernel}\`` : '', ...Object.entries(c.tags).map(([k, v]) => `${k}=${v}`)];
  parts.push(`${c.runs} run${c.runs === 1 ? '' : 's'}, up to ${c.repeats} repeat${c.repeats === 1 ? '' : 's'}`);
  return parts.filter(Boolean).join(', ');
}

/** The Markdown intro of a starter notebook: which captures, which is the baseline, what they ran. */
export function introText(captures: readonly CapturePublic[], baseline: string): string {
  const base = captures.find((c) => c.id === baseline);
  const order = [...captures.filter((c) => c.id === baseline), ...captures.filter((c) => c.id !== baseline)];
  const head = captures.length === 1 ? `One capture, **${base?.label ?? baseline}**.` : `Comparing ${captures.length} captures against the baseline **${base?.label ?? baseline}**.`;
  const lines = [head, ''];
  for (const c of order) lines.push(`- **${c.label}**${c.id === baseline ? ' (baseline)' : ''}: ${facts(c)}`);
  const workloads = [...new Set(captures.map((c) => c.workload_summary).filter((w): w is string => !!w))];
  if (workloads.length === 1) lines.push('', `Workload: \`${workloads[0]}\`.`);
  return lines.join('\n');
}

/** A cell as far as generated words care: a text ('note') cell holds { text }. */
interface TextCell {
  kind: string;
  full: boolean;
  state: unknown;
}

/**
 * The baseline changes from `from` to `to`: the generated words that still read as generated
 * follow it (the title, and every text cell whose text is exactly the intro written for `from`);
 * words the user edited are left as they are (noteBaselineMismatch then says they no longer match).
 */
export function followBaseline<C extends TextCell>(
  captures: readonly CapturePublic[],
  from: string,
  to: string,
  cells: readonly C[],
  title: string | undefined,
): { cells: C[]; title: string | undefined } {
  const label = (id: string) => captures.find((c) => c.id === id)?.label ?? id;
  const labels = captures.map((c) => c.label);
  const oldIntro = introText(captures, from).trim();
  const newIntro = introText(captures, to);
  const out = cells.map((c) => (c.kind === 'note' && ((c.state as { text?: string }).text ?? '').trim() === oldIntro ? { ...c, state: { text: newIntro } } : c));
  const newTitle = title !== undefined && title === defaultTitle(labels, label(from)) ? defaultTitle(labels, label(to)) : title;
  return { cells: out, title: newTitle };
}

/**
 * Captures a text names as the baseline ("against the baseline **L**", "**L** (baseline)") that
 * are not the notebook's baseline: the words were written for another baseline.
 */
export function noteBaselineMismatch(text: string, captures: readonly { id: string; label: string }[], baseline: string): string[] {
  const base = captures.find((c) => c.id === baseline)?.label;
  const known = new Set(captures.map((c) => c.label));
  const named = new Set<string>();
  for (const m of text.matchAll(/\bbaseline\s+\*\*([^*\n]+)\*\*/gi)) named.add(m[1]!.trim());
  for (const m of text.matchAll(/\*\*([^*\n]+)\*\*\s*\(baseline\)/gi)) named.add(m[1]!.trim());
  return [...named].filter((l) => l !== base && known.has(l));
}
