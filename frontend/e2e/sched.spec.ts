// Scheduler traces, end to end (issue 4): upload the sched-pinned pair of datasets/ (pinned fio and
// a busy loop on CPU 1, outside and inside a cgroup of weight 1000, captured on this machine),
// compare them: the starter notebook has the sched cell next to the fio table; its comparison
// table, the workload CPUs' switch rate, the ping-pong pairs, the per-run charts and the delay
// histograms; then a capture without a trace and its empty state.
// Runs against a real `iolens serve` (see playwright.config.ts); does not assume an empty library.
// IOLENS_SHOTS=dir also saves screenshots. IOLENS_E2E_SCHED_BUNDLES=a:b picks other bundles.
import { type Locator, type Page } from '@playwright/test';
import { expect, test } from './filePage';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const shots = process.env.IOLENS_SHOTS;

test.describe.configure({ mode: 'serial' });

function bundleIn(folder: string): string | null {
  const dir = path.join(repo, 'datasets', folder);
  const f = fs.existsSync(dir) ? fs.readdirSync(dir).filter((x) => x.endsWith('.iolens.tar.gz')).sort()[0] : undefined;
  return f ? path.join(dir, f) : null;
}

function schedBundles(): string[] {
  if (process.env.IOLENS_E2E_SCHED_BUNDLES) return process.env.IOLENS_E2E_SCHED_BUNDLES.split(path.delimiter);
  return ['sched-pinned', 'sched-pinned-w1000'].map(bundleIn).filter((x): x is string => x !== null);
}

const shot = async (page: Page, name: string) => {
  if (shots) await page.locator('section.cell[data-kind="sched"]').screenshot({ path: path.join(shots, `${name}.png`) });
};

let base = { id: '', label: '' };
let w1000 = { id: '', label: '' };

test('upload the pair; the starter notebook has the sched cell next to the fio table', async ({ page }) => {
  const files = schedBundles();
  test.skip(files.length < 2, 'needs datasets/sched-pinned and datasets/sched-pinned-w1000');
  test.setTimeout(240_000); // ingest of ~1M scheduler events on a shared machine
  await page.goto('/');
  await page.getByTestId('bundle-input').setInputFiles(files);
  const items = page.getByTestId('upload-item');
  await expect(items).toHaveCount(2);
  for (let i = 0; i < 2; i++) await expect(items.nth(i)).toHaveClass(/upload-done/, { timeout: 180_000 });

  const list = (await (await page.request.get('/api/captures')).json()) as { id: string; label: string; artifact_kinds?: string[] }[];
  const pick = (re: RegExp) => list.find((c) => re.test(c.label) && (c.artifact_kinds ?? []).includes('perf-sched'))!;
  base = pick(/sched-pinned$/);
  w1000 = pick(/sched-pinned-w1000$/);
  expect(base && w1000).toBeTruthy();

  // Compare from the library, the capture outside the cgroup as the baseline.
  await page.goto('/');
  await page.getByRole('checkbox', { name: `Select ${base.label}`, exact: true }).check();
  await page.getByRole('checkbox', { name: `Select ${w1000.label}`, exact: true }).check();
  await page.getByRole('radio', { name: `Baseline: ${base.label}`, exact: true }).check();
  await page.getByRole('button', { name: /^Compare 2/ }).click();
  await expect(page).toHaveURL(/&cell=fio&cell=sched(&|$)/);
  const kinds = await page.locator('section.cell').evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')));
  expect(kinds.indexOf('sched')).toBe(kinds.indexOf('fio') + 1);

  const cell = page.locator('section.cell[data-kind="sched"]');
  await expect(cell.locator('.cell-kind')).toHaveText('Scheduler');

  // Above everything: each capture, its workload's CPU, its runs and whether events were lost.
  const status = cell.getByTestId('sched-status');
  await expect(status.locator(`tr[data-capture="${base.id}"]`)).toContainText('fio on CPU 1');
  await expect(status.locator(`tr[data-capture="${base.id}"]`)).toContainText('3 runs');
  await expect(status.locator(`tr[data-capture="${w1000.id}"]`)).toContainText(/no events lost|events lost/);

  // The comparison table: the fio table's look, means with units, ratios to the baseline.
  const cmp = cell.getByTestId('sched-compare');
  await expect(cmp).toBeVisible();
  await expect(cmp.locator('.cap-head').first()).toContainText(base.label);
  await expect(cmp.locator('.cap-head').first()).toContainText('baseline');
  const row = cmp.locator('tr[data-metric="switches_workload"]');
  await expect(row.locator('td.mean').first()).toHaveText(/^\d[\d.,]*k?\/s$/);
  await expect(row.locator('td.ratio')).toHaveText(/^[+-±]\d+\.\d %$|^×\d/);
  const title = (await row.locator('td.mean').nth(1).getAttribute('title')) ?? '';
  expect(title).toContain(w1000.label);
  expect(title).toContain('[/s]');
  expect(title).toContain('runs: r000, r001, r002');
  expect(title).toContain('workload: fio on CPU 1');
  await expect(cmp.locator('tr[data-metric="pingpong_per_s"]')).toBeVisible();
  await expect(cmp.locator('tr[data-metric="workload_delay_p99"] td.mean').first()).toHaveText(/(µs|ms)$/);

  // The workload CPUs' switch rate, one line per capture and run.
  const rate = cell.getByTestId('sched-rate');
  await expect(rate).toBeVisible();
  await expect(rate.locator('svg.ts-chart path')).toHaveCount(6);

  // Top ping-pong pairs per capture: the top pair highlighted, rate and share with units.
  const pairs = cell.getByTestId('sched-top-pairs-table');
  await expect(pairs).toHaveCount(2);
  const top = pairs.nth(1).locator('tr[data-top]');
  await expect(top).toHaveCount(1);
  await expect(top).toContainText('top');
  await expect(top.locator('td.strong-num')).toHaveText(/\/s$/);
  await expect(top).toContainText(/\d %/);
  // the captures' tables read as one: each column at the same x and width (components/AlignedColumns.tsx)
  await expectSameColumns(pairs);
  expect(await top.locator('td.strong-num').getAttribute('title')).toMatch(/run r00\d · CPU 1 \(workload\)/);
  await shot(page, 'sched-01-comparison');
});

test('the capture page lists the probe of each run: recorded vs counted and what perf cost', async ({ page }) => {
  test.skip(!base.id, 'needs the uploaded pair');
  await page.goto(`/captures/${base.id}`);
  const table = page.getByTestId('probes-table');
  await expect(table).toBeVisible();
  const rows = table.locator('tbody tr[data-probe="sched"]');
  await expect(rows).toHaveCount(3); // one per run
  const first = rows.first();
  await expect(first.locator('td').nth(1)).toHaveText('--sched');
  await expect(first.locator('td').nth(6)).toHaveText(/^\d+ ms · \d+\.\d %$/); // perf's CPU time and share of a CPU
  await expect(first.locator('td').nth(6)).toHaveAttribute('title', /% of one CPU/);
  await expect(first.locator('td').nth(9)).toHaveText('512 MiB'); // --probe-max-mb, not reached
  await expect(first.locator('.probe-count', { hasText: 'sched_switch' })).toHaveText(/^sched_switch [\d,]+ \/ [\d,]+/);
});

test('switch rate per CPU and run, with perf stat beside, hover says capture, run, CPU, unit', async ({ page }) => {
  test.skip(!base.id, 'needs the uploads');
  await page.goto(`/compare?v=1&captures=${base.id},${w1000.id}&baseline=${base.id}&cell=sched`);
  const cell = page.locator('section.cell[data-kind="sched"]');
  await cell.getByRole('button', { name: 'Switch rate' }).click();
  await expect(page).toHaveURL(/cell=sched:v=rate$/);
  const panels = cell.getByTestId('sched-rate-panel');
  await expect(panels).toHaveCount(6);
  // CPU 0 grey, CPU 1 (the workload's) in the capture's colour, perf stat's counts dotted
  await expect(panels.first().locator('svg.ts-chart path')).toHaveCount(4);
  await panels.nth(3).locator('.ts-wrap').hover({ position: { x: 200, y: 60 } });
  const tip = page.getByTestId('chart-tip');
  await expect(tip).toBeVisible();
  await expect(tip).toContainText(w1000.label);
  await expect(tip).toContainText(/run r000/);
  await expect(tip).toContainText('CPU 1 (workload)');
  await expect(tip).toContainText(/k?\/s/);
  await expect(tip).toContainText('perf stat');
  await shot(page, 'sched-02-switch-rate');

  // Involuntary switches, overlaid: the link keeps it
  await cell.getByLabel('Measure').selectOption('involuntary');
  await cell.getByRole('button', { name: 'Overlay' }).click();
  await expect(page).toHaveURL(/cell=sched:v=rate;m=involuntary;lay=overlay$/);
  await page.reload();
  await expect(cell.getByTestId('sched-rate').locator('svg.ts-chart path')).toHaveCount(6);
});

/** Tables shown one under the other as one: their header cells at the same x and width, table by table. */
async function expectSameColumns(tables: Locator) {
  const edges = await tables.evaluateAll((ts) => ts.map((t) => [...t.querySelectorAll('thead th')].map((th) => { const r = th.getBoundingClientRect(); return `${Math.round(r.left)}+${Math.round(r.width)}`; })));
  expect(edges.length).toBeGreaterThan(1);
  for (const e of edges.slice(1)) expect(e).toEqual(edges[0]);
}

test('ping-pong pairs, tasks, delays and run time, per capture', async ({ page }) => {
  test.skip(!base.id, 'needs the uploads');
  await page.goto(`/compare?v=1&captures=${base.id},${w1000.id}&baseline=${base.id}&cell=sched:v=pingpong`);
  const cell = page.locator('section.cell[data-kind="sched"]');
  const tables = cell.getByTestId('sched-pingpong-table');
  await expect(tables).toHaveCount(2);
  const top = tables.nth(1).locator('tbody tr').first();
  await expect(top).toHaveAttribute('data-top', 'true');
  await expect(top.locator('.pp-top')).toHaveText('top');
  await expect(top.locator('td.strong-num')).toHaveText(/\/s$/);
  // the fio <-> kworker pairs are marked wherever they are
  await expect(cell.locator('tr[data-storm] .pp-storm').first()).toHaveText('workload ⇄ kworker');
  await expectSameColumns(tables);
  await shot(page, 'sched-03-pingpong');

  await cell.getByRole('button', { name: 'Tasks', exact: true }).first().click();
  const tasks = cell.getByTestId('sched-tasks-table');
  await expect(tasks).toHaveCount(2);
  await expect(tasks.first().locator('th', { hasText: 'involuntary' })).toBeVisible();
  expect(await tasks.first().locator('tbody tr').first().locator('td.num').nth(2).getAttribute('title')).toMatch(/run r00\d · CPU \d/);

  await cell.getByRole('button', { name: 'Wakeup delays' }).click();
  await expect(page).toHaveURL(/cell=sched:v=delays$/);
  const delays = cell.getByTestId('sched-delays-table');
  await expect(delays).toHaveCount(2);
  await expect(delays.first().locator('svg.hist-strip').first()).toBeVisible();
  await expect(delays.first().locator('tbody tr', { hasText: 'kworker/*' }).first()).toBeVisible();
  await shot(page, 'sched-04-delays');

  await cell.getByRole('button', { name: 'Run time' }).click();
  const rt = cell.getByTestId('sched-runtime-table');
  await expect(rt).toHaveCount(2);
  await expect(rt.first()).toContainText('CPUs');
  await expect(cell.getByTestId('sched-runtime').first()).toContainText('workload CPU 1');
});

test('a capture without a scheduler trace: compared all the same, and the empty state says how to record one', async ({ page }) => {
  test.skip(!base.id, 'needs the uploads');
  const other = bundleIn('fs-ext4');
  test.skip(!other, 'needs datasets/fs-ext4');
  const r = await page.request.post('/api/captures', { multipart: { file: { name: path.basename(other!), mimeType: 'application/gzip', buffer: fs.readFileSync(other!) } } });
  expect(r.ok(), await r.text()).toBeTruthy();
  const plain = (await r.json()) as { id: string };

  await page.goto(`/compare?v=1&captures=${base.id},${w1000.id},${plain.id}&baseline=${base.id}&cell=sched`);
  const cell = page.locator('section.cell[data-kind="sched"]');
  await expect(cell.getByTestId('sched-compare').locator('.cap-head')).toHaveCount(3);
  await expect(cell.getByTestId('sched-status').locator(`tr[data-capture="${plain.id}"]`)).toContainText('no scheduler trace');
  await expect(cell.getByTestId('sched-missing')).toContainText(`No scheduler traces in`);
  await expect(cell.getByTestId('sched-missing')).toContainText('Record with iolens-collect run --sched');

  await page.goto(`/compare?v=1&captures=${plain.id}&baseline=${plain.id}&cell=sched`);
  const empty = cell.getByTestId('sched-empty');
  await expect(empty).toBeVisible();
  await expect(empty).toContainText('iolens-collect run');
  await expect(empty).toContainText('--sched');
  await expect(empty).toContainText('--cgroup iolens-w1000 --cpu-weight 1000');
  await expect(empty).toContainText('--cpus 1');
  await shot(page, 'sched-05-empty');
});
