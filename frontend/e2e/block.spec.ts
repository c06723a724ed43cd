// The block layer cell, end to end: upload two real block captures (iodepth 1 and 32 on an ext4
// loop device, made here by make-block-bundles.sh when root with fio; datasets/block-*/ when it
// has them; the perf sample otherwise), open the cell, read the charts and their hover boxes,
// brush to zoom and check that the URL keeps the range, then the loss warning (the perf sample lost
// completions), the empty state, and the options in the URL.
// Runs against a real `iolens serve` (playwright.config.ts); does not assume an empty library.
// IOLENS_SHOTS=dir also saves a screenshot of every state.
import { type Page } from '@playwright/test';
import { expect, test } from './filePage';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const shots = process.env.IOLENS_SHOTS;
const tmp = process.env.IOLENS_E2E_TMP ?? fs.mkdtempSync('/tmp/iolens-e2e-');

test.describe.configure({ mode: 'serial' });

function datasetBundles(): string[] {
  const root = path.join(repo, 'datasets');
  if (!fs.existsSync(root)) return [];
  for (const d of fs.readdirSync(root).filter((n) => n.startsWith('block-')).sort()) {
    const dir = path.join(root, d);
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.iolens.tar.gz')).sort();
    if (files.length >= 2) return files.slice(0, 2).map((f) => path.join(dir, f));
  }
  return [];
}

/** Made here with the collector (root, fio, perf or blktrace); kept in the temp dir between runs. */
function collectedBundles(): string[] {
  const dir = path.join(os.tmpdir(), 'iolens-e2e-block');
  const files = ['block-qd1', 'block-qd32'].map((n) => path.join(dir, `${n}.iolens.tar.gz`));
  const script = path.join(here, 'make-block-bundles.sh');
  const fresh = files.every((f) => fs.existsSync(f) && fs.statSync(f).mtimeMs > fs.statSync(script).mtimeMs);
  if (fresh) return files;
  if (process.getuid?.() !== 0) return [];
  try {
    execFileSync(script, [dir], { stdio: 'pipe', timeout: 120_000 });
    return files.every((f) => fs.existsSync(f)) ? files : [];
  } catch {
    return [];
  }
}

/** The perf sample (lost events) and the blkparse corpus trace, built from text in the repository. */
function sampleBundles(): string[] {
  const out = execFileSync('uv', ['run', '--project', repo, 'python', path.join(here, 'block_sample_bundles.py'), path.join(tmp, 'block-samples')], { cwd: repo, stdio: 'pipe' });
  return out.toString().trim().split('\n').filter(Boolean);
}

async function upload(page: Page, file: string): Promise<{ id: string; label: string }> {
  const r = await page.request.post('/api/captures', {
    multipart: { file: { name: path.basename(file), mimeType: 'application/gzip', buffer: fs.readFileSync(file) } },
    timeout: 120_000,
  });
  expect(r.ok(), await r.text()).toBeTruthy();
  return (await r.json()) as { id: string; label: string };
}

const shot = async (page: Page, name: string) => {
  if (shots) await page.locator('section.cell[data-kind="block"]').first().screenshot({ path: path.join(shots, `block-${name}.png`) });
};

const cellUrl = (ids: string[], state = '') => `/compare?v=1&captures=${ids.join(',')}&cell=block${state ? `:${state}` : ''}`;
const zoomOf = (url: string) => /cell=block(?::|%3A)[^&]*t(?:=|%3D)(\d+)-(\d+)/.exec(decodeURIComponent(url));

let pair: { id: string; label: string }[] = [];
let samples: { id: string; label: string }[] = [];
let noBlock: { id: string; label: string } | null = null;
let multiRun: { id: string; label: string } | null = null;

test('upload block captures', async ({ page }) => {
  test.setTimeout(400_000);
  await page.goto('/');
  const made = process.env.IOLENS_E2E_BLOCK_BUNDLES?.split(path.delimiter) ?? [];
  const sampleFiles = sampleBundles();
  const files = made.length >= 2 ? made : datasetBundles().length >= 2 ? datasetBundles() : collectedBundles();
  const main = files.length >= 2 ? files : sampleFiles;
  pair = [];
  for (const f of main) pair.push(await upload(page, f));
  samples = [];
  for (const f of sampleFiles) samples.push(await upload(page, f));
  // datasets/block-loop: one capture, two runs of 50/50 random reads and writes
  const loop = path.join(repo, 'datasets', 'block-loop');
  const loopFile = fs.existsSync(loop) ? fs.readdirSync(loop).find((f) => f.endsWith('.iolens.tar.gz')) : undefined;
  if (loopFile) multiRun = await upload(page, path.join(loop, loopFile));
  const other = (process.env.IOLENS_E2E_BUNDLES ?? '').split(path.delimiter).filter(Boolean)[0];
  if (other) noBlock = await upload(page, other);
  const runs = (await (await page.request.get(`/api/block/runs?captures=${pair.map((p) => p.id).join(',')}`)).json()) as unknown[];
  expect(runs.length).toBeGreaterThanOrEqual(2);
});

test('two captures overlaid: queue depth, IOPS, throughput, latency, histogram, sizes', async ({ page }) => {
  const ids = pair.map((p) => p.id);
  await page.goto(cellUrl(ids));
  const cell = page.locator('section.cell[data-kind="block"]');
  await expect(cell.locator('.cell-kind')).toHaveText('Block layer');
  const legend = cell.getByTestId('block-legend');
  for (const p of pair) await expect(legend).toContainText(p.label);
  for (const id of ['chart-qd', 'chart-iops', 'chart-bw', 'chart-lat', 'chart-hist', 'chart-size']) await expect(cell.getByTestId(id)).toBeVisible();
  // one line per capture in each time chart, with data in it
  for (const id of ['chart-qd', 'chart-iops', 'chart-lat']) {
    const paths = cell.getByTestId(id).locator('svg.ts-chart > g[clip-path] path');
    await expect(paths).not.toHaveCount(0);
    expect(await paths.evaluateAll((ps) => ps.filter((p) => (p.getAttribute('d') ?? '').length > 100).length)).toBeGreaterThanOrEqual(ids.length);
  }
  await expect(cell.getByTestId('chart-qd')).toContainText('I/Os in flight');
  await expect(cell.getByTestId('chart-bw')).toContainText(/[KMG]iB\/s/);
  await expect(cell.getByTestId('zoom-bar')).toContainText('whole run');
  await shot(page, 'overview');

  // hover: every number says its capture, run, device, unit and interval
  const ov = cell.getByTestId('chart-iops').locator('.brush-overlay');
  await ov.scrollIntoViewIfNeeded();
  const box = (await ov.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.55, box.y + box.height * 0.5);
  const tip = cell.getByTestId('chart-tip');
  await expect(tip).toBeVisible();
  await expect(tip).toContainText(pair[0]!.label);
  await expect(tip).toContainText(/run r\d{3} · device \d+,\d+/);
  await expect(tip).toContainText('IO/s');
  await expect(tip).toContainText(/interval, since run start/);
  // the crosshair is drawn in every time chart
  await expect(cell.locator('.crosshair')).toHaveCount(4);
  await shot(page, 'hover');
  const lat = cell.getByTestId('chart-lat').locator('.brush-overlay');
  await lat.scrollIntoViewIfNeeded();
  const lb = (await lat.boundingBox())!;
  await page.mouse.move(lb.x + lb.width * 0.6, lb.y + lb.height * 0.5);
  await expect(cell.getByTestId('chart-tip')).toContainText(/p99/);
  await expect(cell.getByTestId('chart-tip')).toContainText(/[µm]s|ns/);
  await page.mouse.move(0, 0);
});

test('brush to zoom: the range is in the URL, survives a reload, Esc and double click reset it', async ({ page }) => {
  const ids = pair.map((p) => p.id);
  await page.goto(cellUrl(ids));
  const cell = page.locator('section.cell[data-kind="block"]');
  const iops = cell.getByTestId('chart-iops');
  await expect(iops.locator('.brush-overlay')).toBeVisible();
  const interval = async () => /per (\d+ [µm]?s)/.exec((await iops.locator('.chart-sub').textContent()) ?? '')?.[1] ?? null;
  await expect.poll(interval).not.toBeNull();
  const before = await interval();
  await iops.locator('.brush-overlay').scrollIntoViewIfNeeded();
  const box = (await iops.locator('.brush-overlay').boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.3, box.y + 20);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.4, box.y + 30, { steps: 4 });
  await expect(iops.locator('.brush-label')).toContainText(/ s$| ms$/);
  await page.mouse.move(box.x + box.width * 0.45, box.y + 30, { steps: 4 });
  await page.mouse.up();
  // the old lines stay on screen, redrawn in the new range, while the finer answer loads
  await expect(cell.locator('.chart-placeholder')).toHaveCount(0);
  await expect.poll(() => zoomOf(page.url())).not.toBeNull();
  const [, from, to] = zoomOf(page.url())!;
  expect(Number(to)).toBeGreaterThan(Number(from));
  const bar = cell.getByTestId('zoom-bar');
  await expect(bar).not.toContainText('whole run');
  const shown = await bar.locator('.zoom-range').textContent();
  // the server answers the new range with finer buckets
  await expect.poll(interval).not.toBe(before);
  expect(await interval()).not.toBeNull();
  await expect(cell.locator('.chart-stale')).toHaveCount(0);
  await shot(page, 'zoomed');

  await page.reload();
  await expect(cell.getByTestId('zoom-bar').locator('.zoom-range')).toHaveText(shown ?? '');
  expect(zoomOf(page.url())?.slice(1)).toEqual([from, to]);

  // pan later by half the range
  await cell.getByTestId('zoom-bar').getByTitle('Later (→)').click();
  await expect.poll(() => Number(zoomOf(page.url())?.[1])).toBeGreaterThan(Number(from));

  // Esc (with the cell focused) goes back to the whole run
  await cell.getByTestId('chart-qd').locator('.brush-overlay').click();
  await page.keyboard.press('Escape');
  await expect.poll(() => zoomOf(page.url())).toBeNull();
  await expect(cell.getByTestId('zoom-bar')).toContainText('whole run');

  // and a double click on a chart does too
  await page.goto(cellUrl(ids, `t=${from}-${to}`));
  await expect(cell.getByTestId('zoom-bar')).not.toContainText('whole run');
  await cell.getByTestId('chart-lat').locator('.brush-overlay').dblclick();
  await expect.poll(() => zoomOf(page.url())).toBeNull();
});

test('options live in the URL: scatter, operations, latency measures', async ({ page }) => {
  const ids = pair.map((p) => p.id);
  await page.goto(cellUrl(ids));
  const cell = page.locator('section.cell[data-kind="block"]');
  await cell.getByRole('group', { name: 'Charts' }).getByRole('button', { name: 'Sector scatter' }).click();
  await expect(cell.getByTestId('chart-scatter').locator('canvas')).toBeVisible();
  await expect.poll(() => decodeURIComponent(page.url())).toMatch(/cell=block:c=qd,iops,bw,lat,hist,size,scatter/);
  await cell.getByRole('group', { name: 'Charts' }).getByRole('button', { name: 'Throughput' }).click();
  await cell.getByRole('group', { name: 'Latency measures' }).getByRole('button', { name: 'p99.9' }).click();
  await expect.poll(() => decodeURIComponent(page.url())).toMatch(/lat=p50,p99,p999/);
  await cell.getByText('by operation').click();
  await expect.poll(() => decodeURIComponent(page.url())).toMatch(/split=1/);
  await expect(cell.getByTestId('chart-bw')).toHaveCount(0);
  await shot(page, 'options');
  await cell.getByRole('group', { name: 'Operation' }).getByRole('button', { name: 'read', exact: true }).click();
  await expect.poll(() => decodeURIComponent(page.url())).toMatch(/op=read/);
  await expect(cell.getByTestId('chart-lat')).toContainText('reads only');
  await cell.getByTestId('chart-scatter').locator('.brush-overlay').scrollIntoViewIfNeeded();
  const sc = (await cell.getByTestId('chart-scatter').locator('.brush-overlay').boundingBox())!;
  await page.mouse.move(sc.x + sc.width * 0.5, sc.y + sc.height * 0.5);
  await shot(page, 'scatter');
});

test('a capture that lost events says so on every chart', async ({ page }) => {
  test.skip(samples.length === 0, 'no sample bundles');
  await page.goto(cellUrl(samples.map((s) => s.id)));
  const cell = page.locator('section.cell[data-kind="block"]');
  await expect(cell.getByTestId('block-lost')).toContainText('Lost block events');
  await expect(cell.getByTestId('block-lost')).toContainText(/perf stat counted/);
  for (const id of ['chart-qd', 'chart-iops', 'chart-bw', 'chart-lat', 'chart-hist', 'chart-size']) {
    await expect(cell.getByTestId(id).getByTestId('lost-chip')).toContainText('events lost');
  }
  await expect(cell.getByTestId('block-legend').locator('.lost-badge')).toHaveCount(1);
  await shot(page, 'lost-events');
});

test('without block data: the collector flag explained; a mixed set names the capture without', async ({ page }) => {
  test.skip(noBlock === null, 'no capture without block data');
  await page.goto(cellUrl([noBlock!.id]));
  const cell = page.locator('section.cell[data-kind="block"]');
  await expect(cell.getByTestId('block-empty')).toContainText('--block DEV');
  await shot(page, 'empty');
  await page.goto(cellUrl([pair[0]!.id, noBlock!.id]));
  await expect(cell.getByTestId('block-missing')).toContainText(noBlock!.label);
  await expect(cell.getByTestId('block-missing')).toContainText('Record with iolens-collect run --block DEV');
  await expect(cell.getByTestId('chart-qd')).toBeVisible();
  await shot(page, 'mixed');
});

test('one capture with two runs: a line per run; reads and writes apart', async ({ page }) => {
  test.skip(multiRun === null, 'no datasets/block-loop bundle');
  await page.goto(cellUrl([multiRun!.id], 'split=1'));
  const cell = page.locator('section.cell[data-kind="block"]');
  const legend = cell.getByTestId('block-legend');
  await expect(legend.locator('.legend-item')).toHaveCount(2);
  await expect(legend).toContainText('/ r000');
  await expect(legend).toContainText('/ r001');
  const iops = cell.getByTestId('chart-iops');
  await expect(iops.locator('.style-key')).toContainText(['read', 'write']);
  // two runs x (read, write) lines at least
  expect(await iops.locator('svg.ts-chart > g[clip-path] path').count()).toBeGreaterThanOrEqual(4);
  await shot(page, 'runs-and-ops');
});

test("fio's own IOPS log over the device's: dashed, in the key, named in the hover box, by op", async ({ page }) => {
  test.skip(multiRun === null, 'no datasets/block-loop bundle');
  await page.goto(cellUrl([multiRun!.id]));
  const cell = page.locator('section.cell[data-kind="block"]');
  const iops = cell.getByTestId('chart-iops');
  await expect(iops.locator('.style-key')).toContainText('fio iops log (avg 100 ms)');
  // one dashed fio line per run, beside the device's solid lines
  const fio = iops.locator('svg.ts-chart > g[clip-path] path[stroke-dasharray="12 4"]');
  await expect(fio).toHaveCount(2);
  expect(await fio.evaluateAll((ps) => ps.filter((p) => (p.getAttribute('d') ?? '').length > 100).length)).toBe(2);
  // each in its run's colour, as the run's device line
  const colours = await iops.locator('svg.ts-chart > g[clip-path] path').evaluateAll((ps) => ps.map((p) => [p.getAttribute('stroke'), p.getAttribute('stroke-dasharray')]));
  for (const [c, dash] of colours) if (dash === '12 4') expect(colours.some(([c2, d2]) => c2 === c && d2 === null)).toBe(true);
  await expect(cell.getByTestId('fio-note')).toHaveCount(0);
  // the hover box names the capture, run, job and log file, with the unit and the interval
  const ov = iops.locator('.brush-overlay');
  await ov.scrollIntoViewIfNeeded();
  const box = (await ov.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.5);
  const tip = cell.getByTestId('chart-tip');
  await expect(tip).toContainText(`${multiRun!.label} / r000 · fio iops log, read + write`);
  await expect(tip).toContainText('fio job randrw-4k · runs/r000/logs/0-randrw-4k_iops.1.log · 100 ms windows');
  await expect(tip).toContainText(/\d(\.\d+)?k? IO\/s/);
  await expect(tip).toContainText(/interval, since run start/);
  await shot(page, 'fio-iops');
  await page.mouse.move(0, 0);
  // reads only: fio's read direction; flushes: fio has none
  await page.goto(cellUrl([multiRun!.id], 'op=read'));
  await expect(iops.locator('svg.ts-chart > g[clip-path] path[stroke-dasharray="12 4"]')).toHaveCount(2);
  await page.goto(cellUrl([multiRun!.id], 'op=flush'));
  await expect(iops.locator('svg.ts-chart > g[clip-path] path').first()).toBeVisible();
  await expect(iops.locator('svg.ts-chart > g[clip-path] path[stroke-dasharray="12 4"]')).toHaveCount(0);
  await expect(iops.locator('.style-key')).toHaveCount(0);
});

/** Where the points of a time chart's lines sit, as a share of the plot's height from its bottom
 *  (1: the top of the scale; above 1: off the top, clipped): their median. */
async function medianHeight(chart: ReturnType<Page['locator']>): Promise<number> {
  return chart.locator('svg.ts-chart').first().evaluate((svg) => {
    const rect = svg.querySelector('clipPath rect')!;
    const top = Number(rect.getAttribute('y')) + 2;
    const bottom = Number(rect.getAttribute('y')) + Number(rect.getAttribute('height')) - 1;
    const hs: number[] = [];
    for (const p of svg.querySelectorAll(':scope > g[clip-path] path:not(.line-halo)')) {
      for (const m of (p.getAttribute('d') ?? '').matchAll(/[ML](-?[\d.]+),(-?[\d.]+)/g)) hs.push((bottom - Number(m[2])) / (bottom - top));
    }
    hs.sort((a, b) => a - b);
    return hs.length ? hs[Math.floor(hs.length / 2)]! : -1;
  });
}

test('a start-up spike does not flatten the throughput: the clipped scale says so, and full scale is kept in the URL', async ({ page }) => {
  test.skip(multiRun === null, 'no datasets/block-loop bundle');
  // datasets/block-loop: fio lays its file out first, a burst of writes of more than 2 GiB/s at
  // 0.5 s in r000, against a steady state of a few tens of MiB/s
  await page.goto(cellUrl([multiRun!.id], 'c=bw'));
  const cell = page.locator('section.cell[data-kind="block"]');
  const bw = cell.getByTestId('chart-bw');
  const toggle = cell.getByTestId('scale-bw');
  await expect(toggle).toHaveText(/^scale clipped at p90 · \d+ above, max [\d.]+ GiB\/s$/);
  await expect(toggle).toHaveAttribute('aria-pressed', 'true');
  await expect(toggle).toHaveAttribute('title', /stops at the 90th percentile .* run off the top/);
  await expect(bw.locator('.chart-unit')).toHaveText('MiB/s');
  // the steady state fills the plot: its median point is well off the bottom of the scale
  await expect.poll(() => medianHeight(bw)).toBeGreaterThan(0.2);
  await shot(page, 'scale-clipped');

  // full scale: the spike sets it and the steady state lies along the bottom; kept in the URL
  await toggle.click();
  await expect(toggle).toHaveText(/^full scale · clip at p90$/);
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');
  await expect.poll(() => decodeURIComponent(page.url())).toMatch(/cell=block:c=bw;scale=full/);
  await expect.poll(() => medianHeight(bw)).toBeLessThan(0.05);
  await page.reload();
  await expect(cell.getByTestId('scale-bw')).toHaveText(/^full scale/);
  await expect.poll(() => medianHeight(bw)).toBeLessThan(0.05);
  // and back: the clip is the default, so it leaves the URL
  await cell.getByTestId('scale-bw').click();
  await expect.poll(() => decodeURIComponent(page.url())).not.toMatch(/scale=/);
  await expect(cell.getByTestId('scale-bw')).toHaveText(/^scale clipped at p90/);
});

test("the capture page: each run's block figures with units and their source, and the label in the tab title", async ({ page }) => {
  test.skip(multiRun === null, 'no datasets/block-loop bundle');
  await page.goto(`/captures/${multiRun!.id}`);
  await expect(page).toHaveTitle(`${multiRun!.label} · capture · iolens`);
  const figures = page.getByTestId('probe-headlines');
  for (const run of ['r000', 'r001']) {
    const row = figures.locator(`tr[data-probe="block"][data-run="${run}"]`);
    await expect(row).toContainText('device 7,0, whole run');
    await expect(row.locator('[data-label="IOPS"]')).toHaveText(/^IOPS [\d.]+k? IO\/s$/);
    await expect(row.locator('[data-label="throughput"]')).toHaveText(/^throughput [\d.]+ MiB\/s$/);
    await expect(row.locator('[data-label="queue depth max"]')).toHaveText(/^queue depth max [\d.]+$/);
    await expect(row.locator('[data-label="D2C p99"]')).toHaveText(/^D2C p99 [\d.]+ [µm]s$/);
    // where each number came from, on hover
    await expect(row.locator('[data-label="D2C p99"]')).toHaveAttribute('title', /trace of the run: issue to complete at the device, from its histogram/);
  }
  if (shots) await figures.screenshot({ path: path.join(shots, 'capture-probe-figures.png') });
});
