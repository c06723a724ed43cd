// Captures with real call stacks for the flame specs: the shipped datasets/stacks-xfs (and
// stacks-ext4), or, in a checkout without them, the bundles e2e/make-flame-bundles.py makes from
// the recordings in backend/tests (dio-4k and dio-16k), made once per temporary folder.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function shipped(folder: string): string[] {
  const dir = path.join(repo, 'datasets', folder);
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.iolens.tar.gz')).sort().map((f) => path.join(dir, f)) : [];
}

function made(tmp: string, names: string[]): string[] {
  const out = path.join(tmp, 'flame-bundles');
  const files = names.map((b) => path.join(out, `${b}.iolens.tar.gz`));
  if (!files.every((f) => fs.existsSync(f))) {
    execFileSync('python3', [path.join(repo, 'frontend', 'e2e', 'make-flame-bundles.py'), out], { stdio: 'pipe' });
  }
  return files;
}

/** One capture with real call stacks (fio on XFS). */
export function xfsStacksBundle(tmp: string): string {
  return shipped('stacks-xfs')[0] ?? made(tmp, ['dio-4k'])[0]!;
}

/** Two captures with real call stacks (ext4, then XFS). */
export function stacksBundlePair(tmp: string): string[] {
  const found = [...shipped('stacks-ext4'), ...shipped('stacks-xfs')];
  return found.length >= 2 ? found.slice(0, 2) : made(tmp, ['dio-4k', 'dio-16k']);
}
