// The shared test vectors of the rules kept in both TypeScript and Python (testdata/vectors/ at
// the repository root, README.md there): the same JSON files feed the Vitest and pytest tests.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../testdata/vectors');

/** testdata/vectors/NAME.json, parsed. */
export function vectors<T>(name: string): T {
  return JSON.parse(fs.readFileSync(path.join(DIR, `${name}.json`), 'utf-8')) as T;
}
