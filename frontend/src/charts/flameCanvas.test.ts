// Canvas drawing tested by recording the calls (Firefox Profiler style).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { frameRgb, GREY, hex, layoutFromText, MATCH, layoutTree, searchMatches, treeFromFolded, visibleRects, type FlameLayout } from '../logic/flame';
import { sandwich, stacksFromTree, treeFromStacks } from '../logic/flameStacks';
import { drawFlame, fitLabel, frameFills, sandwichFills, type Ctx2D } from './flameCanvas';

function recorder(): Ctx2D & { calls: string[] } {
  const calls: string[] = [];
  const r = (n: number) => +n.toFixed(2);
  let path: string[] = [];
  const ctx = {
    calls,
    _fill: '' as unknown,
    font: '',
    textBaseline: 'alphabetic' as CanvasTextBaseline,
    set fillStyle(v: string | CanvasGradient | CanvasPattern) {
      this._fill = v;
    },
    get fillStyle() {
      return this._fill as string;
    },
    beginPath() {
      path = [];
    },
    rect(x: number, y: number, w: number, h: number) {
      path.push(`${r(x)},${r(y)},${r(w)},${r(h)}`);
    },
    fill() {
      calls.push(`fill ${this._fill} ${path.join(' ')}`);
    },
    fillText(t: string, x: number, y: number) {
      calls.push(`text ${this._fill} ${t} ${r(x)} ${r(y)}`);
    },
    clearRect(x: number, y: number, w: number, h: number) {
      calls.push(`clear ${x} ${y} ${w} ${h}`);
    },
  };
  return ctx;
}

const FIXTURE = `
fio          fio          kworker
entry        entry        worker
vfs_write    vfs_read
iomap_dio_rw
`;

describe('drawFlame', () => {
  const lay = layoutFromText(FIXTURE);

  it('flame: root at the bottom, labels where they fit', () => {
    const ctx = recorder();
    drawFlame(ctx, lay, visibleRects(lay, 0, 300), frameFills(lay, null), { width: 300, rows: lay.maxDepth, icicle: false, charW: 6.6 });
    // one path per fill; labels after, where they fit
    expect(ctx.calls).toEqual([
      'clear 0 0 300 80',
      'fill #d5d9de 0,64,299,15 0,48,199,15 200,48,99,15',
      'fill #eea84f 0,32,199,15 0,16,99,15',
      'fill #f89c67 100,16,99,15',
      'fill #f8b367 100,0,99,15',
      'fill #eed64f 200,32,99,15',
      'text #1f2328 all 3 72',
      'text #1f2328 fio 3 56',
      'text #1f2328 entry 3 40',
      'text #1f2328 vfs_read 3 24',
      'text #1f2328 vfs_write 103 24',
      'text #1f2328 iomap_dio_rw 103 8',
      'text #1f2328 kworker 203 56',
      'text #1f2328 worker 203 40',
    ]);
  });

  it('icicle with a search: matches purple, the rest faded, narrow labels cut', () => {
    const ctx = recorder();
    const s = searchMatches(lay.names, '^vfs_');
    const match = s.ok ? s.match : null;
    drawFlame(ctx, lay, visibleRects(lay, 0, 120), frameFills(lay, match), { width: 120, rows: lay.maxDepth, icicle: true, charW: 6.6 });
    expect(ctx.calls).toEqual([
      'clear 0 0 120 80',
      'fill #d5d9de 0,0,119,15 0,16,79,15 80,16,39,15',
      'fill #f8dcb8 0,32,79,15',
      'fill #b44fcf 0,48,39,15 40,48,39,15',
      'fill #fce0c2 40,64,39,15',
      'fill #f8eeb8 80,32,39,15',
      'text #1f2328 all 3 8',
      'text #1f2328 fio 3 24',
      'text #1f2328 entry 3 40',
      'text #1f2328 iom.. 43 72',
      'text #1f2328 kwo.. 83 24',
      'text #1f2328 wor.. 83 40',
      'text #ffffff vfs.. 3 56',
      'text #ffffff vfs.. 43 56',
    ]);
  });

  it('a view of some rows: only they are cleared and labelled, every rect is drawn (the canvas clips)', () => {
    const whole = recorder();
    const part = recorder();
    const s = { width: 300, rows: lay.maxDepth, icicle: false, charW: 6.6 };
    drawFlame(whole, lay, visibleRects(lay, 0, 300), frameFills(lay, null), s);
    // rows at y 20..52 of the graph: those at y 16 (vfs_read, vfs_write), 32 (entry, worker) and 48 (fio, kworker)
    drawFlame(part, lay, visibleRects(lay, 0, 300), frameFills(lay, null), { ...s, view: { top: 20, height: 32 } });
    expect(part.calls[0]).toBe('clear 0 20 300 32');
    const fills = (c: string[]) => c.filter((x) => x.startsWith('fill'));
    expect(fills(part.calls)).toEqual(fills(whole.calls));
    expect(part.calls.filter((x) => x.startsWith('text'))).toEqual([
      'text #1f2328 fio 3 56',
      'text #1f2328 entry 3 40',
      'text #1f2328 vfs_read 3 24',
      'text #1f2328 vfs_write 103 24',
      'text #1f2328 kworker 203 56',
      'text #1f2328 worker 203 40',
    ]);
  });

  it('labels', () => {
    expect(fitLabel('ext4_file_write_iter', 60, 6)).toBe('ext4_fi..');
    expect(fitLabel('ext4', 60, 6)).toBe('ext4');
    expect(fitLabel('ext4_file_write_iter', 20, 6)).toBe('');
  });
});

describe('sandwich fills (datasets/stacks-xfs, real perf stacks)', () => {
  // the folded stacks of the real capture (see logic/flameStacks.test.ts): first frame the command
  const text = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../testdata/stacks-xfs.folded'), 'utf-8');
  const folded = new Map(
    text
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.lastIndexOf(' ')), Number(l.slice(l.lastIndexOf(' ') + 1))] as [string, number]),
  );
  const t = treeFromFolded(folded);
  const xfs = stacksFromTree({ names: t.names, name: t.name, depth: t.depth, self: t.values[0]!, samples: t.values[0]!.map((w) => (w > 0 ? 1 : 0)) });
  const commandsOf = new Set([...folded.keys()].map((k) => k.split(';')[0]!));
  const nameOf = (lay: FlameLayout, n: number) => lay.names.get(lay.name[n]!)!;
  const isLeaf = (lay: FlameLayout, n: number) => n + 1 >= lay.n || lay.depth[n + 1]! <= lay.depth[n]!;

  it('callers: the direct callers coloured as functions, only the commands at the top grey', () => {
    for (const fn of ['iomap_dio_rw', 'xfs_file_write_iter', 'blk_mq_submit_bio']) {
      const sw = sandwich(xfs, fn)!;
      expect([...sw.commands].map((k) => xfs.names[k]).sort()).toEqual([...commandsOf].filter((c) => [...folded.keys()].some((k) => k.startsWith(c + ';') && k.split(';').slice(1).includes(fn))).sort());
      const lay = layoutTree(treeFromStacks(sw.callers, 'name'));
      const fill = sandwichFills(lay, null, sw.commands);
      let callers = 0;
      let commands = 0;
      for (let n = 0; n < lay.n; n++) {
        const name = nameOf(lay, n);
        if (n > 0 && commandsOf.has(name)) {
          // a command: grey, and always the top of its column (the task the calls came from)
          expect(fill(n), `${fn}: ${name}`).toBe(GREY);
          expect(isLeaf(lay, n), `${fn}: ${name}`).toBe(true);
          commands++;
        } else {
          expect(fill(n), `${fn}: ${name} at depth ${lay.depth[n]}`).toBe(hex(frameRgb(name)));
          if (lay.depth[n] === 1) callers++;
        }
      }
      expect(nameOf(lay, 0)).toBe(fn);
      expect(callers).toBeGreaterThan(0);
      expect(commands).toBeGreaterThan(0);
      // the plain flame graph's depth rule would draw these direct callers grey
      const plain = frameFills(lay, null);
      for (let n = 0; n < lay.n; n++) if (lay.depth[n] === 1 && !commandsOf.has(nameOf(lay, n))) expect(plain(n)).toBe(GREY);
    }
  });

  it('callees: every frame a function, none grey; a search match purple at any depth', () => {
    const sw = sandwich(xfs, 'iomap_dio_rw')!;
    const lay = layoutTree(treeFromStacks(sw.callees, 'name'));
    const fill = sandwichFills(lay, null, new Set());
    for (let n = 0; n < lay.n; n++) expect(fill(n)).not.toBe(GREY);
    const up = layoutTree(treeFromStacks(sw.callers, 'name'));
    const caller = nameOf(up, 1);
    expect(up.depth[1]).toBe(1);
    const s = searchMatches(up.names, `^fio$|^${caller}$`);
    const hit = sandwichFills(up, s.ok ? s.match : null, sw.commands);
    const hits = new Set<string>();
    for (let n = 1; n < up.n; n++)
      if (['fio', caller].includes(nameOf(up, n))) {
        expect(hit(n)).toBe(MATCH);
        hits.add(nameOf(up, n));
      } else expect(hit(n)).not.toBe(MATCH);
    // a direct caller and a command, both purple
    expect([...hits].sort()).toEqual([caller, 'fio'].sort());
  });
});
