// The golden helper itself: a missing file fails, and only IOLENS_BLESS=1 writes.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { checkGolden } from './golden';

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'golden');
const NAME = 'zz-golden-helper-test';
const file = path.join(DIR, `${NAME}.svg`);
const changed = path.join(DIR, `${NAME}-changed.svg`);
const saved = process.env.IOLENS_BLESS;

afterEach(() => {
  if (saved === undefined) delete process.env.IOLENS_BLESS;
  else process.env.IOLENS_BLESS = saved;
  for (const f of [file, changed]) if (fs.existsSync(f)) fs.rmSync(f);
});

describe('checkGolden', () => {
  it('fails on a missing golden file and writes none, also with IOLENS_BLESS=0 or yes', () => {
    for (const v of [undefined, '0', 'yes', '']) {
      if (v === undefined) delete process.env.IOLENS_BLESS;
      else process.env.IOLENS_BLESS = v;
      expect(checkGolden(NAME, <svg width={1} />)).toMatch(/is missing .*IOLENS_BLESS=1 writes it/);
      expect(fs.existsSync(file)).toBe(false);
      expect(fs.existsSync(changed)).toBe(true);
    }
  });
  it('IOLENS_BLESS=1 writes it; then the same drawing passes and another one fails', () => {
    process.env.IOLENS_BLESS = '1';
    expect(checkGolden(NAME, <svg width={1} />)).toBeNull();
    expect(fs.existsSync(file)).toBe(true);
    delete process.env.IOLENS_BLESS;
    expect(checkGolden(NAME, <svg width={1} />)).toBeNull();
    expect(checkGolden(NAME, <svg width={2} />)).toMatch(/differs from line 1/);
    expect(fs.existsSync(changed)).toBe(true);
  });
});
