// Shapes GET /api/captures/{id}/lock-stat/stacks (a lock class's call sites found in perf call
// stacks) into what the "In perf stacks" section of the lock contention cell draws: one row per
// symbol x capture with stacks, formatted numbers whose hover titles say which capture, runs and
// event they come from, the flame graph search that shows the same frames, and the heaviest stacks
// cut to the part that matters. Pure; tests in lockStacks.test.ts.
import type { Schemas } from '../api/client';
import { exactPattern } from './flameSelect';
import { formatValue } from './format';
import { formatCount } from './lockStat';

export type LockStacks = Schemas['LockStacks'];
export type LockStacksCapture = Schemas['LockStacksCapture'];
export type LockSymbol = Schemas['LockSymbol'];
export type LockSymbolCapture = Schemas['LockSymbolCapture'];

/**
 * The flame graph search (a JavaScript regular expression, tested against each frame name) that
 * matches exactly these frame names: '^name$', or '^(?:a|b)$' for several.
 */
export function flameSearch(frames: readonly string[]): string {
  const names = [...new Set(frames)].sort();
  if (names.length === 0) return '';
  if (names.length === 1) return exactPattern(names[0]!);
  return `^(?:${names.map((n) => exactPattern(n).slice(1, -1)).join('|')})$`;
}

/** A weight in the capture's unit: ns of CPU ('60.3 ms') or a count of events. */
export function formatWeight(w: number, unit: 'ns' | 'count'): string {
  return unit === 'ns' ? formatValue(w, 'ns') : `${formatCount(w)} ev`;
}

/**
 * A share in percent with the decimals of the flame graph's "matched" share (so the two read the
 * same): '28.1 %', '6.00 %', '0.46 %', '0.012 %', '0 %'.
 */
export function formatPct(p: number | null | undefined): string {
  if (p === null || p === undefined || !Number.isFinite(p)) return '–';
  if (p === 0) return '0 %';
  const a = Math.abs(p);
  return `${p.toFixed(a >= 10 ? 1 : a >= 0.1 ? 2 : 3)} %`;
}

export interface StackFrame {
  name: string;
  /** The symbol's frame. */
  match: boolean;
  /** A lock slow-path frame below the symbol. */
  slow: boolean;
}

export interface StackView {
  comm: string;
  /** Frames between the comm and the symbol's caller that are not shown. */
  elided: number;
  /** From the symbol's caller (when there is one) to the leaf. */
  frames: StackFrame[];
  weight: string;
  samples: string;
  pct: string;
  slowpath: boolean;
  /** The whole folded stack, for the hover title and copying. */
  folded: string;
}

/** '*' patterns of the API's `slowpath` list -> one regular expression over whole names. */
export function slowpathRegex(patterns: readonly string[]): RegExp {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^(?:${patterns.map((p) => p.split('*').map(esc).join('.*')).join('|')})$`);
}

/** The clone and annotation suffixes the backend removes before matching (views/lock_stacks.py CLONE_SUFFIX). */
export const functionOf = (frame: string) => frame.replace(/((\.(isra|constprop|part|cold|llvm|lto_priv)(\.[0-9]+)*)*)(_\[[kij]\])?$/, '');

/** A folded stack cut to what matters for a call site: the comm, then the symbol's caller down to the leaf. */
export function stackView(line: Schemas['LockStackLine'], frames: readonly string[], slow: RegExp, total: number, unit: 'ns' | 'count'): StackView {
  const parts = line.folded.split(';');
  const comm = parts[0] ?? '';
  const fr = parts.slice(1);
  const set = new Set(frames);
  const at = fr.findIndex((f) => set.has(f));
  const from = Math.max(0, at - 1);
  return {
    comm,
    elided: from,
    frames: fr.slice(from).map((name, i) => ({ name, match: set.has(name), slow: at >= 0 && from + i > at && slow.test(functionOf(name)) })),
    weight: formatWeight(line.weight, unit),
    samples: formatCount(line.samples),
    pct: formatPct(total ? (100 * line.weight) / total : null),
    slowpath: line.slowpath,
    folded: line.folded,
  };
}

export interface SymbolCaptureRow {
  capture: LockStacksCapture;
  color: string;
  samples: string;
  weight: string;
  share: string;
  /** 0-1 for the share bar (of the largest share in the table). */
  bar: number;
  slow: string;
  found: boolean;
  titles: { samples: string; weight: string; share: string; slow: string };
  /** The flame graph search for the matched frames ('' when nothing matched). */
  search: string;
  stacks: StackView[];
}

export interface SymbolRow {
  name: string;
  /** 'waited 1,105,001 · held 1,102,024' (summed over the captures naming it), or 'class name'. */
  from: string;
  fromTitle: string;
  found: boolean;
  captures: SymbolCaptureRow[];
}

export interface StacksView {
  /** Captures with perf stacks, in the answer's order. */
  withStacks: LockStacksCapture[];
  withoutStacks: LockStacksCapture[];
  symbols: SymbolRow[];
  /** Notes to show under the table (the no-stacks note is the empty state instead). */
  notes: string[];
  /** The empty state when no capture has stacks, else null. */
  empty: string | null;
  slowpath: string[];
}

const KIND_WORD = { contention: 'waited', contending: 'held', class: 'class name' } as const;

function runsWords(c: LockStacksCapture): string {
  return c.runs.length === 1 ? `run ${c.runs[0]}` : `runs ${c.runs.join(', ')} (summed)`;
}

export function buildStacksView(d: LockStacks, colorOf: (id: string) => string, labelOf: (id: string) => string = (id) => d.captures.find((c) => c.id === id)?.label ?? id): StacksView {
  const withStacks = d.captures.filter((c) => c.stacks);
  const withoutStacks = d.captures.filter((c) => !c.stacks);
  const byId = new Map(d.captures.map((c) => [c.id, c]));
  const slow = slowpathRegex(d.slowpath);
  const maxShare = Math.max(0, ...d.symbols.flatMap((s) => s.stacks.map((p) => p.share_pct)));
  const symbols: SymbolRow[] = d.symbols.map((s) => {
    // The counts of the first capture naming the call site (the class's own capture when it does);
    // counts of different kernels are not added up.
    const first = s.sources[0]?.capture;
    const sums = new Map<string, number>();
    for (const src of s.sources) if (src.kind !== 'class' && src.capture === first) sums.set(src.kind, (sums.get(src.kind) ?? 0) + (src.count ?? 0));
    const more = new Set(s.sources.filter((x) => x.kind !== 'class' && x.capture !== first).map((x) => x.capture)).size;
    const from = s.sources.some((x) => x.kind === 'class')
      ? 'class name'
      : (['contention', 'contending'] as const)
          .filter((k) => sums.has(k))
          .map((k) => `${KIND_WORD[k]} ${formatCount(sums.get(k)!)}`)
          .join(' · ') + (more ? ` · +${more} capture${more > 1 ? 's' : ''}` : '');
    const fromTitle = [
      `${s.name}: searched in the stacks as this function's frame (compiler suffixes such as .isra.0 ignored)`,
      ...s.sources.map((src) =>
        src.kind === 'class'
          ? `an identifier of the class name ${src.symbol} that is a frame name in the stacks`
          : `${labelOf(src.capture)}: ${src.kind === 'contention' ? 'contention point (waited for the lock)' : 'contending point (held it while others waited)'} ${src.symbol}, ${formatCount(src.count ?? 0)} times`,
      ),
    ].join('\n');
    const captures = s.stacks.map((p): SymbolCaptureRow => {
      const c = byId.get(p.capture)!;
      const unit = c.weight_unit;
      const where = `${labelOf(c.id)} (${c.id}), ${runsWords(c)}, event ${c.event ?? '(none)'}`;
      const frames = p.frames.length ? p.frames.join(', ') : s.name;
      return {
        capture: c,
        color: colorOf(c.id),
        samples: formatCount(p.samples),
        weight: p.samples ? formatWeight(p.weight, unit) : '',
        share: p.samples ? formatPct(p.share_pct) : '',
        bar: maxShare > 0 ? p.share_pct / maxShare : 0,
        slow: p.samples ? formatPct(p.slow_pct) : '',
        found: p.samples > 0,
        titles: {
          samples: `${where}\n${formatCount(p.samples)} samples whose stack has the frame ${frames} (each sample once)\nof ${formatCount(c.total_samples)} samples with a stack`,
          weight: `${where}\n${formatWeight(p.weight, unit)}: the sample periods of those samples summed${unit === 'ns' ? ' (ns of CPU)' : ''}`,
          share: `${where}\n${formatWeight(p.weight, unit)} of ${formatWeight(c.total_weight, unit)}: the share of the capture's samples under ${frames} (the flame graph's "matched" share for that search)`,
          slow: `${where}\n${formatCount(p.slow_samples)} of the ${formatCount(p.samples)} samples (${formatWeight(p.slow_weight, unit)} of ${formatWeight(p.weight, unit)}) have a lock slow-path frame below ${s.name}: spinning or going to sleep on a contended lock`,
        },
        search: flameSearch(p.frames),
        stacks: p.top.map((t) => stackView(t, p.frames, slow, c.total_weight, unit)),
      };
    });
    return { name: s.name, from, fromTitle, found: s.found, captures };
  });
  const emptyNote = d.notes.find((n) => n.startsWith('None of these captures has perf call stacks')) ?? null;
  return {
    withStacks,
    withoutStacks,
    symbols,
    notes: d.notes.filter((n) => n !== emptyNote),
    empty: withStacks.length === 0 ? (emptyNote ?? 'No capture in this notebook has perf call stacks.') : null,
    slowpath: d.slowpath,
  };
}
