import { describe, expect, it } from 'vitest';
import { captureList } from '../testdata/fixtures';
import { defaultTitle, followBaseline, introText, noteBaselineMismatch } from './notebook';

describe('starter notebook words', () => {
  it('title: the others vs the baseline', () => {
    expect(defaultTitle(['xfs', 'ext4'], 'ext4')).toBe('xfs vs ext4');
    expect(defaultTitle(['a', 'b', 'c', 'd', 'e'], 'a')).toBe('b, c, d and 1 more vs a');
    expect(defaultTitle(['a'], 'a')).toBe('a');
  });

  it('intro: the captures, baseline first, with kernel, tags and repeats', () => {
    const caps = captureList.slice(0, 2);
    const text = introText(caps, caps[1]!.id);
    const lines = text.split('\n');
    expect(lines[0]).toBe(`Comparing 2 captures against the baseline **${caps[1]!.label}**.`);
    expect(lines[2]).toMatch(new RegExp(`^- \\*\\*${caps[1]!.label}\\*\\* \\(baseline\\): kernel \``));
    expect(lines[3]).toMatch(new RegExp(`^- \\*\\*${caps[0]!.label}\\*\\*: `));
  });

  it('intro of one capture: no comparison, no "1 captures"', () => {
    const one = captureList.slice(0, 1);
    const lines = introText(one, one[0]!.id).split('\n');
    expect(lines[0]).toBe(`One capture, **${one[0]!.label}**.`);
    expect(lines[2]).toMatch(new RegExp(`^- \\*\\*${one[0]!.label}\\*\\* \\(baseline\\): `));
  });
});

describe('generated words follow the baseline until edited', () => {
  const caps = captureList.slice(0, 2);
  const [a, b] = [caps[0]!, caps[1]!];
  const cells = [
    { kind: 'note', full: false, state: { text: introText(caps, a.id) } },
    { kind: 'note', full: false, state: { text: `${introText(caps, a.id)}\n\nMy own finding.` } },
    { kind: 'fio', full: false, state: {} },
  ];
  it('regenerates the untouched intro and title, keeps edited text', () => {
    const title = defaultTitle([a.label, b.label], a.label);
    const out = followBaseline(caps, a.id, b.id, cells, title);
    expect((out.cells[0]!.state as { text: string }).text).toBe(introText(caps, b.id));
    expect(out.cells[1]).toBe(cells[1]);
    expect(out.cells[2]).toBe(cells[2]);
    expect(out.title).toBe(`${a.label} vs ${b.label}`);
    expect(followBaseline(caps, a.id, b.id, cells, 'my title').title).toBe('my title');
  });
  it('says which baseline an edited text still names', () => {
    const text = (cells[1]!.state as { text: string }).text;
    expect(noteBaselineMismatch(text, caps, a.id)).toEqual([]);
    expect(noteBaselineMismatch(text, caps, b.id)).toEqual([a.label]);
    expect(noteBaselineMismatch('against the baseline **not-a-capture**', caps, b.id)).toEqual([]);
  });
});
