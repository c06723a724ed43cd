// Finds two bundles for the browser tests: datasets/**/*.iolens.tar.gz (two from the same folder
// when possible, so that they compare the same job), or IOLENS_E2E_BUNDLES=a.tar.gz:b.tar.gz.
// Without two in datasets/, makes two with the collector (needs fio), small and quick.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function walk(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return walk(p);
    return e.name.endsWith('.iolens.tar.gz') ? [p] : [];
  });
}

export function pickBundles(files: string[]): string[] {
  const byDir = new Map<string, string[]>();
  for (const f of [...files].sort()) byDir.set(path.dirname(f), [...(byDir.get(path.dirname(f)) ?? []), f]);
  for (const list of byDir.values()) if (list.length >= 2) return list.slice(0, 2);
  return [...files].sort().slice(0, 2);
}

function collect(label: string, out: string, tmp: string): void {
  execFileSync(
    'uv',
    ['run', '--project', repo, 'iolens-collect', 'run', '--label', label, '--tag', `e2e=${label}`, '--repeat', '2',
      '--fio-args', `--name=e2e --filename=${path.join(tmp, `${label}.dat`)} --size=4m --bs=4k --rw=randwrite --ioengine=psync --runtime=1 --time_based`,
      '-o', out],
    { cwd: repo, stdio: 'pipe' },
  );
}

export default function globalSetup(): void {
  if (process.env.IOLENS_E2E_BUNDLES) return;
  let bundles = pickBundles(walk(path.join(repo, 'datasets')));
  if (bundles.length < 2) {
    const tmp = process.env.IOLENS_E2E_TMP ?? fs.mkdtempSync('/tmp/iolens-e2e-');
    bundles = ['e2e-base', 'e2e-other'].map((l) => path.join(tmp, `${l}.iolens.tar.gz`));
    try {
      bundles.forEach((b, i) => collect(['e2e-base', 'e2e-other'][i]!, b, tmp));
    } catch (e) {
      throw new Error(`No two bundles in datasets/ and the collector could not make them (is fio installed?): ${String(e)}`, { cause: e });
    }
  }
  process.env.IOLENS_E2E_BUNDLES = bundles.join(path.delimiter);
}
