import { describe, expect, it } from 'vitest';
import { captureList } from '../testdata/fixtures';
import type { CapturePublic } from '../api/client';
import { documentToView } from './document';
import { captureNotebookUrl, compareUrl, encodeQueryValue, parseUrl, starterUrl, upgraders, URL_VERSION, viewToUrl, withStarterCells, type View } from './url';

const parse = (url: string) => {
  const u = new URL(url, 'http://x');
  return parseUrl(u.pathname, u.search);
};
const roundTrip = (v: View) => {
  const url = viewToUrl(v);
  const p = parse(url);
  expect(p.problems).toEqual([]);
  expect(p.view).toEqual(v);
  return url;
};

describe('URL state round trip', () => {
  it('compare notebook with several cells and states', () => {
    const url = roundTrip({
      page: 'compare',
      captures: ['aaaa1111', 'bbbb2222', 'cccc3333'],
      baseline: 'bbbb2222',
      cells: [
        { kind: 'fio', full: false, state: { metrics: null, strips: true } },
        { kind: 'note', full: true, state: { text: 'ext4 loses 11 % & p99: see "sys CPU"; 100%=ok #1 +x' } },
        { kind: 'fio', full: true, state: { metrics: ['iops', 'clat_p99_ns'], strips: false } },
      ],
    });
    expect(url).toBe(
      '/compare?v=1&captures=aaaa1111,bbbb2222,cccc3333&baseline=bbbb2222&cell=fio' +
        '&cell=note.full:ext4%20loses%2011%20%25%20%26%20p99:%20see%20%22sys%20CPU%22;%20100%25=ok%20%231%20%2Bx' +
        '&cell=fio.full:m=iops,clat_p99_ns;strip=0',
    );
  });

  it('an empty notebook stays empty', () => {
    roundTrip({ page: 'compare', captures: ['a', 'b'], baseline: 'a', cells: [] });
  });

  it('library filter and sort', () => {
    expect(roundTrip({ page: 'library', query: 'xfs 6.18', sort: { key: 'label', desc: false } })).toBe('/?v=1&q=xfs%206.18&sort=label');
    expect(roundTrip({ page: 'library', query: '', sort: { key: 'date', desc: true } })).toBe('/');
  });

  it('capture page', () => {
    expect(roundTrip({ page: 'capture', id: '3f9a1c2b4d5e6f70' })).toBe('/captures/3f9a1c2b4d5e6f70');
  });

  it('compareUrl starts a notebook with the default cells', () => {
    expect(compareUrl(['a1', 'b2'], 'b2')).toBe('/compare?v=1&captures=a1,b2&baseline=b2&cell=fio');
  });

  it('query values keep readable separators and escape the rest', () => {
    expect(encodeQueryValue('a,b:c;d=e/f@g')).toBe('a,b:c;d=e/f@g');
    expect(encodeQueryValue('a&b+c d#e%')).toBe('a%26b%2Bc%20d%23e%25');
  });
});

describe('URL versions', () => {
  it('has an upgrader for every version up to the current one', () => {
    for (let v = 1; v <= URL_VERSION; v++) expect(upgraders[v]).toBeTypeOf('function');
  });

  it('v0 (no v): base= becomes baseline=, and the default fio cell is added', () => {
    const p = parse('/compare?captures=aaaa,bbbb&base=bbbb');
    expect(p.problems).toEqual([]);
    expect(p.view).toEqual({
      page: 'compare',
      captures: ['aaaa', 'bbbb'],
      baseline: 'bbbb',
      cells: [{ kind: 'fio', full: false, state: { metrics: null, strips: true } }],
    });
    expect(viewToUrl(p.view)).toBe('/compare?v=1&captures=aaaa,bbbb&baseline=bbbb&cell=fio');
  });

  it('v0 with cells keeps them', () => {
    const p = parse('/compare?captures=aaaa,bbbb&cell=note:hi');
    expect(p.view.page === 'compare' && p.view.cells.map((c) => c.kind)).toEqual(['note']);
  });

  it('v1 without cells never chose any: the starter cells, once the captures are known (not the v0 upgrade)', () => {
    const caps: CapturePublic[] = [
      { ...captureList[0]!, artifact_kinds: ['fio-json', 'perf-sched'] },
      { ...captureList[1]!, artifact_kinds: ['fio-json'] },
    ];
    const [a, b] = caps.map((c) => c.id);
    const p = parse(`/compare?v=1&captures=${a},${b}`);
    expect(p.problems).toEqual([]);
    expect(p.view).toEqual({ page: 'compare', captures: [a, b], baseline: a, cells: [], starter: true });
    // still a link without cells until then (a reload asks again)
    expect(viewToUrl(p.view)).toBe(`/compare?v=1&captures=${a},${b}&baseline=${a}`);
    const started = p.view.page === 'compare' ? withStarterCells(p.view, caps) : null;
    expect(started?.starter).toBeUndefined();
    expect(started?.cells.map((c) => c.kind)).toEqual(['note', 'fio', 'sched']);
    // the cells of the library's Compare (starterUrl) over the same captures
    expect(parse(starterUrl(caps, a!)).view).toMatchObject({ cells: started?.cells });
  });

  it('a capture page typed as /capture/ID (singular) is the capture page, not "Nothing here"', () => {
    expect(parse('/capture/e2c50753b6e5e221').view).toEqual({ page: 'capture', id: 'e2c50753b6e5e221' });
    expect(viewToUrl(parse('/capture/e2c50753b6e5e221').view)).toBe('/captures/e2c50753b6e5e221');
    expect(parse('/capturesx/e2c50753b6e5e221').view.page).toBe('not-found');
  });

  it("the capture page's notebook link has not chosen its cells: it opens with the capture's starter cells", () => {
    const u = captureNotebookUrl('e2c50753b6e5e221');
    expect(u).toBe('/compare?v=1&captures=e2c50753b6e5e221&baseline=e2c50753b6e5e221');
    expect(parse(u).view).toEqual({ page: 'compare', captures: ['e2c50753b6e5e221'], baseline: 'e2c50753b6e5e221', cells: [], starter: true });
  });

  it('a capture of off-CPU stacks alone starts with a flame graph (of the time off the CPU) beside the off-CPU cell', () => {
    const caps: CapturePublic[] = [{ ...captureList[0]!, artifact_kinds: ['fio-json', 'perf-sched', 'perf-offcpu'] }];
    const cells = parse(starterUrl(caps, caps[0]!.id)).view;
    expect(cells.page === 'compare' && cells.cells.map((c) => c.kind)).toEqual(['note', 'fio', 'sched', 'flame', 'offcpu']);
  });

  it('a notebook whose cells were all removed says cells=none and stays empty', () => {
    expect(viewToUrl({ page: 'compare', captures: ['aaaa', 'bbbb'], baseline: 'aaaa', cells: [] })).toBe('/compare?v=1&captures=aaaa,bbbb&baseline=aaaa&cells=none');
    const p = parse('/compare?v=1&captures=aaaa,bbbb&baseline=aaaa&cells=none');
    expect(p.problems).toEqual([]);
    expect(p.view).toEqual({ page: 'compare', captures: ['aaaa', 'bbbb'], baseline: 'aaaa', cells: [] });
    // a saved empty notebook (its document has no cell) edited into the URL form stays empty too
    const { view } = documentToView({ format_version: 1, title: 'empty', captures: ['aaaa'], baseline: 'aaaa', cells: [] }, 'k3m9x2p7qa');
    expect(parse(viewToUrl(view)).view).toEqual({ ...view });
    expect(viewToUrl(view)).toContain('&cells=none');
    // listed cells win over a stray cells=none; another word is reported
    expect(parse('/compare?v=1&captures=aaaa&cells=none&cell=fio').view).toMatchObject({ cells: [{ kind: 'fio' }] });
    expect(parse('/compare?v=1&captures=aaaa&cells=all').problems[0]).toMatch(/only cells=none/);
  });

  it('a newer version is refused with a message, not guessed', () => {
    const p = parse('/compare?v=99&captures=aaaa,bbbb');
    expect(p.view.page).toBe('bad-url');
    expect(p.view.page === 'bad-url' && p.view.problems[0]).toMatch(/version 99.*newer iolens/);
  });
});

describe('bad URLs give messages, never a throw', () => {
  const bad = (url: string, re: RegExp) => {
    const p = parse(url);
    expect(p.view.page).toBe('bad-url');
    expect(p.view.page === 'bad-url' && p.view.problems.join(' ')).toMatch(re);
  };

  it('fatal: nothing to compare, bad ids, bad version', () => {
    bad('/compare?v=1', /No captures/);
    bad('/compare?v=1&captures=', /No captures/);
    bad('/compare?v=1&captures=a%20b,c', /'a b' is not a capture id/);
    bad('/compare?v=abc&captures=a', /v=abc is not a version/);
    bad('/captures/..%2Fetc', /not a capture id/);
  });

  it('non-fatal: unknown baseline, duplicate captures, bad cells are reported and the rest shown', () => {
    const p = parse('/compare?v=1&captures=aa,bb,aa&baseline=zz&cell=pie&cell=fio:m=&cell=fio.wide:strip=2&cell=FIO!!&cell=note');
    expect(p.view.page).toBe('compare');
    if (p.view.page !== 'compare') return;
    expect(p.view.captures).toEqual(['aa', 'bb']);
    expect(p.view.baseline).toBe('aa');
    expect(p.view.cells.map((c) => c.kind)).toEqual(['fio', 'fio', 'note']);
    expect(p.view.cells[1]!.state).toEqual({ metrics: null, strips: true });
    const text = p.problems.join('\n');
    expect(text).toMatch(/listed twice/);
    expect(text).toMatch(/baseline 'zz' is not one of the compared captures/);
    expect(text).toMatch(/cell 1 \(pie\): unknown cell kind 'pie'/);
    expect(text).toMatch(/cell 2: fio comparison: m= lists no metric; shown with its default settings/);
    expect(text).toMatch(/cell 3: unknown option \.wide ignored; fio comparison: strip must be 0 or 1/);
    expect(text).toMatch(/cell 4 \(FIO!!\): not KIND/);
  });

  it('unknown paths and sort keys', () => {
    expect(parse('/nope/x').view).toEqual({ page: 'not-found', path: '/nope/x' });
    const p = parse('/?sort=-colour');
    expect(p.view).toEqual({ page: 'library', query: '', sort: { key: 'date', desc: true } });
    expect(p.problems[0]).toMatch(/sort=-colour/);
  });

  it('survives garbage', () => {
    const junk = ['/compare?%E0%A4%A', '/compare?captures=%%%', '/compare?captures=a&cell=%00:%ff', '/captures/%E0%A4%A'];
    for (const u of junk) expect(() => parse(u)).not.toThrow();
    expect(parseUrl('//compare//', '?captures=a,b').view.page).toBe('compare');
  });
});

describe('notebook URLs', () => {
  it('saved versions and the notebook list', () => {
    expect(parse('/n/k3m9x2p7qa').view).toEqual({ page: 'notebook', id: 'k3m9x2p7qa' });
    expect(viewToUrl({ page: 'notebook', id: 'k3m9x2p7qa' })).toBe('/n/k3m9x2p7qa');
    expect(parse('/n/k3m9x2p7qa/').view).toEqual({ page: 'notebook', id: 'k3m9x2p7qa' });
    expect(parse('/n/NOT-AN-ID').view.page).toBe('bad-url');
    expect(parse('/n/short').view.page).toBe('bad-url');
    roundTrip({ page: 'notebooks', query: 'ext4 fs=xfs' });
    roundTrip({ page: 'notebooks', query: '' });
    expect(viewToUrl({ page: 'notebooks', query: '' })).toBe('/notebooks');
  });

  it('a notebook in the URL keeps its title and the version it was edited from', () => {
    const url = roundTrip({
      page: 'compare',
      captures: ['aaaa1111', 'bbbb2222'],
      baseline: 'aaaa1111',
      cells: [{ kind: 'sql', full: false, state: { sql: 'SELECT 1', chart: { mark: 'bar', x: 'a', y: ['b'] } } }],
      title: 'ext4 & xfs: 4k',
      parent: 'k3m9x2p7qa',
    });
    expect(url).toBe('/compare?v=1&captures=aaaa1111,bbbb2222&baseline=aaaa1111&cell=sql:chart=bar:a:b;SELECT%201&title=ext4%20%26%20xfs:%204k&parent=k3m9x2p7qa');
    const p = parse('/compare?v=1&captures=a&parent=../x');
    expect(p.problems[0]).toMatch(/parent '..\/x' is not a notebook id/);
    expect(p.view).toEqual({ page: 'compare', captures: ['a'], baseline: 'a', cells: [], starter: true });
  });

  it('"compare these captures" starts with a title, an intro and the cells that apply', () => {
    const caps = captureList.slice(0, 2);
    const p = parse(starterUrl(caps, caps[1]!.id));
    expect(p.problems).toEqual([]);
    if (p.view.page !== 'compare') throw new Error('not a notebook');
    expect(p.view.title).toBe('6.18-xfs vs 6.18-ext4');
    expect(p.view.baseline).toBe(caps[1]!.id);
    expect(p.view.cells.map((c) => c.kind)).toEqual(['note', 'fio']);
    expect((p.view.cells[0]!.state as { text: string }).text).toMatch(/^Comparing 2 captures against the baseline \*\*6.18-ext4\*\*/);
    // a capture set without fio data gets no fio table; a command swept over a parameter gets the
    // sweep matrix and chart
    const cmd = captureList.slice(3).map((c) => ({ ...c, artifact_kinds: ['cmd-stdout'] }));
    const q = parse(starterUrl(cmd, cmd[0]!.id));
    expect(q.view.page === 'compare' && q.view.cells.map((c) => c.kind)).toEqual(['note', 'sweep', 'sweepline']);
  });

  it("a starter's flame graph names the capture it shows when the baseline has no stacks (its answer, asked for from the URL, is not a 404)", () => {
    const [a, b] = captureList.slice(0, 2).map((c, i) => ({ ...c, artifact_kinds: i === 0 ? ['fio-json'] : ['fio-json', 'perf-script'] }));
    const flame = (baseline: string) => {
      const p = parse(starterUrl([a!, b!], baseline));
      return p.view.page === 'compare' ? p.view.cells.find((c) => c.kind === 'flame') : undefined;
    };
    expect(flame(a!.id)?.state).toMatchObject({ cap: b!.id });
    // a baseline with stacks: the cell follows the baseline, as before
    expect(flame(b!.id)?.state).toMatchObject({ cap: null });
  });
});
