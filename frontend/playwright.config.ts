// Browser tests against the real backend: `iolens serve` on a fresh database, serving the built
// frontend (run `npm run build` first; the Makefile's test-e2e does). Uses Debian's chromium:
// Playwright never downloads a browser here.
import { defineConfig } from '@playwright/test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

const PORT = Number(process.env.IOLENS_E2E_PORT ?? 8765);
// Set IOLENS_E2E_BASE_URL to test a server you started yourself (it must start empty).
const external = process.env.IOLENS_E2E_BASE_URL;
const baseURL = external ?? `http://127.0.0.1:${PORT}`;

// One fresh database per run. The config is also loaded by workers: they inherit the variable.
if (!process.env.IOLENS_E2E_TMP) process.env.IOLENS_E2E_TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'iolens-e2e-'));
const tmp = process.env.IOLENS_E2E_TMP;
const dist = path.resolve(here, 'dist');

export default defineConfig({
  testDir: './e2e',
  // The screenshot gallery runs only when asked for: IOLENS_SHOTS=dir (npm run shots).
  testIgnore: process.env.IOLENS_SHOTS ? [] : ['**/shots.spec.ts'],
  // iolens.spec.ts starts from the empty library: it runs first, the specs that upload after it.
  // htmlexport.spec.ts saves notebooks of its own: it runs last, so the others' notebook lists are theirs.
  projects: [
    { name: 'empty-library', testMatch: '**/iolens.spec.ts' },
    { name: 'all', testIgnore: ['**/iolens.spec.ts', '**/htmlexport.spec.ts', ...(process.env.IOLENS_SHOTS ? [] : ['**/shots.spec.ts'])], dependencies: ['empty-library'] },
    { name: 'exports', testMatch: '**/htmlexport.spec.ts', dependencies: ['all'] },
  ],
  globalSetup: './e2e/global-setup.ts',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: process.env.CI ? [['list']] : [['list']],
  outputDir: 'test-results',
  use: {
    baseURL,
    browserName: 'chromium',
    viewport: { width: 1440, height: 900 },
    // A failed test keeps its trace (actions, DOM snapshots, network) without the screencast: recording
    // the page's frames for every test cost ~17% of the run's CPU (iolens.spec.ts's 8 tests, load ~20,
    // 2026-11-28: 24 s of CPU with them, 20 s without, the same as no trace at all).
    trace: { mode: 'retain-on-failure', screenshots: false },
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.IOLENS_CHROMIUM ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    },
  },
  webServer: external
    ? undefined
    : {
        command: `uv run --project .. iolens serve --db ${path.join(tmp, 'e2e.duckdb')} --port ${PORT} --log-level warning`,
        url: `http://127.0.0.1:${PORT}/api/health`,
        env: { IOLENS_FRONTEND_DIST: dist },
        reuseExistingServer: false,
        timeout: 180_000,
        stdout: 'pipe',
        stderr: 'pipe',
      },
});
