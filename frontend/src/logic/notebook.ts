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
  const lines = [`Comparing ${captures.length} captures against the baseline **${base?.label ?? baseline}**.`, ''];
  for (const c of order) lines.push(`- **${c.label}**${c.id === baseline ? ' (baseline)' : ''}: ${facts(c)}`);
  const workloads = [...new Set(captures.map((c) => c.workload_summary).filter((w): w is string => !!w))];
  if (workloads.length === 1) lines.push('', `Workload: \`${workloads[0]}\`.`);
  return lines.join('\n');
}
