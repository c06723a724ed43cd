// Fails when src/api/schema.d.ts was not regenerated after openapi.json changed.
// (Whether openapi.json matches the backend is checked on the Python side.)
// Fix: `npm run gen:api` (or `make api-client`).
import fs from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';
import { expect, it } from 'vitest';

// Generating the types takes ~1 s, and over 5 s (vitest's default limit) on a loaded 2-core machine.
it('schema.d.ts is generated from openapi.json', { timeout: 60_000 }, async () => {
  const spec = new URL('../../openapi.json', import.meta.url);
  const generated = astToString(await openapiTS(spec));
  const committed = fs.readFileSync(new URL('./schema.d.ts', import.meta.url), 'utf8');
  const body = committed.replace(/^\/\*\*[\s\S]*?\*\/\s*/, '');
  expect(body, 'src/api/schema.d.ts is stale: run `npm run gen:api`').toBe(generated);
});
