import { describe, expect, it } from 'vitest';
import { captureList } from '../testdata/fixtures';
import { defaultTitle, introText } from './notebook';

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
});
