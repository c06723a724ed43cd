// Flame graphs, end to end: upload two captures with real call stacks (datasets/stacks-ext4 and
// stacks-xfs, or, without them, the bundles e2e/make-flame-bundles.py makes from recordings in
// backend/tests/formats/samples), open the flame graph cell, zoom, search, reopen the link, open
// the differential graph and its exports; then measure the drawing time of a 500k-node tree.
// Runs against a real `iolens serve` (playwright.config.ts); does not assume an empty library.
// IOLENS_SHOTS=dir also saves a screenshot of every state.
import type { Page } from '@playwright/test';
import { expect, test } from './filePage';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { huedPixels } from './flameCanvas';
import { stacksBundlePair } from './stackBundles';
import { syntheticTree } from '../src/testdata/flameSynthetic';

const shots = process.env.IOLENS_SHOTS;
const tmp = process.env.IOLENS_E2E_TMP ?? fs.mkdtempSync('/tmp/iolens-e2e-');

test.describe.configure({ mode: 'serial' });

const stackBundles = () => stacksBundlePair(tmp);
/** The pair is the shipped datasets/stacks-* (four repeats each), not the recordings made without them (two). */
const shipped = () => stackBundles().every((b) => b.split(path.sep).includes('datasets'));

async function upload(page: Page, file: string): Promise<string> {
  const r = await page.request.post('/api/captures', { multipart: { file: { name: path.basename(file), mimeType: 'application/gzip', buffer: fs.readFileSync(file) } } });
  expect(r.ok(), await r.text()).toBeTruthy();
  return ((await r.json()) as { id: string }).id;
}

const shot = async (page: Page, name: string) => {
  if (!shots) return;
  await page.locator('section.cell[data-kind="flame"]').first().screenshot({ path: path.join(shots, `${name}.png`) });
};

/** Move over the canvas along a row until the tooltip names a frame; returns its name. */
async function frameAt(page: Page, depthFromBottom: number, xs = [0.5, 0.3, 0.7, 0.15, 0.85, 0.05]): Promise<{ name: string; x: number; y: number }> {
  const canvas = page.getByTestId('flame-canvas');
  await canvas.scrollIntoViewIfNeeded();
  const box = (await canvas.boundingBox())!;
  const y = box.y + box.height - depthFromBottom * 16 - 8;
  for (const f of xs) {
    const x = box.x + f * box.width;
    await page.mouse.move(x, y);
    const tip = page.getByTestId('flame-tooltip');
    if ((await tip.count()) === 0) continue;
    const name = (await tip.locator('.tt-name').textContent()) ?? '';
    if (!/narrower than a pixel/.test(name)) return { name, x, y };
  }
  throw new Error('no frame found on that row');
}

let ids: string[] = [];

test('a capture flame graph: zoom, breadcrumb, search, the link reopens the same view', async ({ page }) => {
  const files = stackBundles();
  ids = [await upload(page, files[0]!), await upload(page, files[1]!)];
  await page.goto(`/compare?v=1&captures=${ids[0]},${ids[1]}&baseline=${ids[0]}&cell=flame`);
  const cell = page.locator('section.cell[data-kind="flame"]');
  await expect(cell.locator('.cell-kind')).toHaveText('Flame graph');
  await expect(cell.getByTestId('flame-canvas')).toBeVisible();
  // the shipped datasets have four repeats, the recordings made without them two
  await expect(cell.getByTestId('flame-summary')).toContainText(new RegExp(`[\\d,]+ samples · .* cpu-clock · ${shipped() ? 4 : 2} runs merged`));
  await expect(cell.getByTestId('flame-top-table').locator('tbody tr').first()).toBeVisible();
  await expect(cell.getByTestId('flame-breadcrumb')).toContainText('click a frame to zoom');
  await shot(page, 'flame-01-capture');

  // a tooltip with samples and percentages
  const frame = await frameAt(page, 2);
  const tip = page.getByTestId('flame-tooltip');
  await expect(tip).toContainText(/Total\s*[\d.]+%\s*[\d,]+ samples/);
  await shot(page, 'flame-02-tooltip');

  // click to zoom: the breadcrumb and the URL follow; Esc zooms out
  await page.mouse.click(frame.x, frame.y);
  await expect(cell.getByTestId('flame-breadcrumb')).toContainText(frame.name);
  await expect(cell.getByTestId('flame-breadcrumb')).toContainText('of all');
  await expect(page).toHaveURL(/cell=flame:z=[^;&]+,[^;&]+/);
  await page.mouse.move(0, 0);
  await shot(page, 'flame-03-zoomed');
  await page.keyboard.press('Escape');
  await expect(page).toHaveURL(/cell=flame:z=[^,;&]+$/);
  await cell.getByTestId('flame-breadcrumb').getByRole('button', { name: 'all' }).click();
  await expect(page).toHaveURL(/cell=flame$/);
  const again = await frameAt(page, 2);
  await page.mouse.click(again.x, again.y);
  await expect(page).toHaveURL(/cell=flame:z=/);

  // '/' focuses the search; matches are counted
  await page.mouse.move(0, 0);
  await page.keyboard.press('/');
  await expect(cell.getByLabel('Search frames (regular expression)')).toBeFocused();
  await page.keyboard.type('iomap|xfs_|ext4_');
  await expect(cell.getByTestId('flame-search-status')).toContainText(/[\d.]+% of samples matched/);
  await expect(page).toHaveURL(/;q=iomap%257Cxfs_%257Cext4_/);
  await cell.getByRole('button', { name: 'Icicle' }).click();
  await expect(page).toHaveURL(/;m=icicle/);
  await shot(page, 'flame-04-search-icicle');
  const status = await cell.getByTestId('flame-search-status').textContent();

  // the link reopens the same zoom, search and mode
  await page.reload();
  await expect(cell.getByTestId('flame-canvas')).toBeVisible();
  await expect(cell.getByLabel('Search frames (regular expression)')).toHaveValue('iomap|xfs_|ext4_');
  await expect(cell.getByTestId('flame-breadcrumb')).toContainText(again.name);
  await expect(cell.getByTestId('flame-search-status')).toHaveText(status!);
  await expect(cell.getByRole('button', { name: 'Icicle' })).toHaveAttribute('aria-pressed', 'true');

  // a bad regex says so and breaks nothing
  await cell.getByLabel('Search frames (regular expression)').fill('(');
  await expect(cell.getByTestId('flame-search-status')).toContainText('not a regular expression');
  await cell.getByLabel('Search frames (regular expression)').fill('');
  await cell.getByLabel('Search frames (regular expression)').press('Enter');
  await expect(page).not.toHaveURL(/;q=/);

  // one run, one CPU: the selection is in the URL
  await cell.getByLabel('Runs').selectOption({ index: 1 });
  await expect(page).toHaveURL(/[:;]runs=r00[01]/);
  await expect(cell.getByTestId('flame-summary')).toContainText(/run r00[01]/);
  await cell.getByLabel('CPU', { exact: true }).selectOption({ index: 1 });
  await expect(page).toHaveURL(/;cpu=\d/);
  await shot(page, 'flame-05-run-cpu');

  // exports of the same view: folded text and SVG
  await cell.locator('.flame-export button').first().click();
  const links = cell.locator('.flame-export .menu-link');
  await expect(links).toHaveCount(2);
  const svg = await page.request.get((await links.nth(0).getAttribute('href'))!);
  expect(svg.headers()['content-type']).toBe('image/svg+xml');
  expect(await svg.text()).toContain('<svg');
  const folded = await page.request.get((await links.nth(1).getAttribute('href'))!);
  expect(await folded.text()).toMatch(/^\S.* \d+\n/);
});

test('a link naming a capture without stacks: the empty state names it and the captures that have them, no error', async ({ page }) => {
  const list = (await (await page.request.get('/api/captures')).json()) as { id: string; label: string; artifact_kinds?: string[] }[];
  const plain = list.find((c) => !(c.artifact_kinds ?? []).some((k) => k === 'perf-script' || k === 'perf-offcpu'))!;
  expect(plain, 'a capture without stacks (the bundles iolens.spec.ts uploads)').toBeTruthy();
  const label = (id: string) => list.find((c) => c.id === id)!.label;
  const cell = page.locator('section.cell[data-kind="flame"]');
  const empty = cell.getByTestId('flame-empty');
  // the server knows which captures have no stacks (index.html says so): nothing asks for their
  // flame answer, so the console has no error (a 404) on any of these links
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('response', (r) => r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`));
  // cap= names it (a link by hand): the server's 404 is not shown as an error
  await page.goto(`/compare?v=1&captures=${plain.id},${ids[0]}&baseline=${plain.id}&cell=flame:cap=${plain.id}`);
  await expect(empty.getByRole('heading')).toHaveText(`No call stacks in ${plain.label}`);
  await expect(empty).toContainText('iolens-collect run --stacks');
  await expect(cell.locator('.error-box')).toHaveCount(0);
  await shot(page, 'flame-05a-no-stacks');
  // the notebook's capture with stacks, one click away
  await empty.getByTestId('empty-pick').getByRole('button', { name: label(ids[0]!) }).click();
  await expect(cell.getByTestId('flame-canvas')).toBeVisible();
  // a hand-made link whose baseline has no stacks, loaded while the capture list is slow: index.html
  // preloads no flame answer of it and tells the page it has none, so the page asks for none and
  // the cell shows the capture with stacks before the capture list comes
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await page.route('**/api/captures', async (route) => {
    await held;
    await route.continue();
  });
  const flameAsked: string[] = [];
  page.on('request', (r) => r.url().includes('/flame') && flameAsked.push(new URL(r.url()).pathname));
  const link = `/compare?v=1&captures=${plain.id},${ids[0]}&baseline=${plain.id}&cell=flame`;
  const html = await (await page.request.get(link)).text();
  expect(html).toContain(`<meta name="iolens-without-stacks" content="${plain.id}">`);
  expect(html).not.toContain('/flame?format=columns');
  await page.goto(link);
  await expect(cell.getByTestId('flame-canvas')).toBeVisible();
  await expect(cell.locator('.error-box')).toHaveCount(0);
  release();
  await expect(cell.getByTestId('flame-canvas')).toBeVisible();
  await page.unroute('**/api/captures');
  expect(flameAsked.filter((p) => p.includes(plain.id))).toEqual([]);
  // none of the notebook has stacks: the library's captures that have them are links that add one
  await page.goto(`/compare?v=1&captures=${plain.id}&baseline=${plain.id}&cell=flame`);
  await expect(empty.getByRole('heading')).toHaveText(`No call stacks in ${plain.label}`);
  await empty.getByTestId('empty-add').getByRole('link', { name: label(ids[1]!) }).click();
  await expect(page).toHaveURL(new RegExp(`captures=${plain.id}(,|%2C)${ids[1]}&`));
  await expect(cell.getByTestId('flame-canvas')).toBeVisible();
  // a notebook of that capture alone, its heatmap asked for, the capture list slow: what index.html
  // said is enough for the empty state at once, and nothing asks for its flame answer (it did: a 404)
  let free!: () => void;
  const slow = new Promise<void>((r) => (free = r));
  await page.route('**/api/captures', async (route) => {
    await slow;
    await route.continue();
  });
  await page.goto(`/compare?v=1&captures=${plain.id}&baseline=${plain.id}&cell=flame:hm=50`);
  await expect(empty).toBeVisible();
  free();
  await expect(empty.getByRole('heading')).toHaveText(`No call stacks in ${plain.label}`);
  await page.unroute('**/api/captures');
  expect(flameAsked.filter((p) => p.includes(plain.id))).toEqual([]);
  expect(errors).toEqual([]);
});

test('the page reads the columns answer; a cut one is an error that says so, not an empty graph', async ({ page }) => {
  // the real answer, as the page asks for it (format=columns), cut in half on its way
  const asked: string[] = [];
  await page.route(`**/api/captures/${ids[0]}/flame*`, async (route) => {
    asked.push(route.request().url());
    const r = await route.fetch();
    const body = await r.body();
    await route.fulfill({ status: 200, headers: { 'content-type': r.headers()['content-type']! }, body: body.subarray(0, body.length >> 1) });
  });
  await page.goto(`/compare?v=1&captures=${ids[0]}&baseline=${ids[0]}&cell=flame`);
  const cell = page.locator('section.cell[data-kind="flame"]');
  await expect(cell).toContainText(/flame answer: header says \d+ bytes, got \d+ \(truncated\?\)/);
  await expect(cell.getByTestId('flame-canvas')).toHaveCount(0);
  expect(asked[0]).toMatch(/\/flame\?format=columns$/);
  await shot(page, 'flame-05b-cut-answer');
});

// It counts the requests of a first load (the preloads taken, one request each): a context of its own,
// as a new visitor's, not the page the file's other tests share (e2e/filePage.ts).
test.describe('first load', () => {
  test.use({ freshContext: true });

  test("a notebook link's index.html preloads its flame answer, the capture list and health; the page takes them, one request each", async ({ page, request }) => {
    // api/index_preload.py (testdata/vectors/index-preload.json): asked for while the HTML is parsed
    const url = `/compare?v=1&captures=${ids[0]}&baseline=${ids[0]}&cell=flame`;
    const flame = `/api/captures/${ids[0]}/flame?format=columns`;
    const html = await (await request.get(url)).text();
    const preloads = [...html.matchAll(/<link rel="preload" as="fetch" crossorigin href="([^"]+)">/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));
    expect(preloads).toEqual([flame, '/api/captures', '/api/health']);
    // after the page's own scripts, styles and font (the browser asks for those first)
    expect(html.indexOf('as="fetch"')).toBeGreaterThan(html.lastIndexOf('rel="modulepreload"'));
    expect((await (await request.get('/')).text())).not.toContain('as="fetch"');

    const asked: string[] = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname.startsWith('/api/')) asked.push(u.pathname + u.search);
    });
    await page.goto(url);
    const cell = page.locator('section.cell[data-kind="flame"]');
    await expect(cell.getByTestId('flame-canvas')).toBeVisible();
    await expect(cell.getByTestId('flame-summary')).toContainText(/[\d,]+ samples/);
    await expect(page.locator('.topbar')).toContainText(/v\d/); // health's answer shown
    // the page's own requests were given the preloaded answers: no second request of any
    for (const p of preloads) expect(asked.filter((a) => a === p), p).toHaveLength(1);
    const initiators = await page.evaluate(() => performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/')).map((e) => (e as PerformanceResourceTiming).initiatorType));
    expect(initiators.slice(0, 3)).toEqual(['link', 'link', 'link']);
  });
});

test('the differential flame graph of two captures, swapped, with its table of changes', async ({ page }) => {
  test.skip(ids.length < 2, 'needs the captures of the first test');
  await page.goto(`/compare?v=1&captures=${ids[0]},${ids[1]}&baseline=${ids[0]}&cell=flame`);
  const cell = page.locator('section.cell[data-kind="flame"]');
  await cell.getByRole('button', { name: 'Difference' }).click();
  await expect(page).toHaveURL(/cell=flame:v=diff/);
  await expect(cell.getByTestId('flame-canvas')).toBeVisible();
  await expect(cell.getByTestId('flame-diff-summary')).toContainText('each side normalised by its own total');
  // the shipped pair (datasets/stacks-*) has four repeats a side: changes red and blue, those within
  // their spread marked; the recordings made without it have two, too few to judge a change (the
  // compared-metric tables' grey ?): grey, and the legend says why
  const shippedPair = shipped();
  if (shippedPair) {
    await expect(cell.getByTestId('flame-diff-legend')).toContainText('blue shrank');
    await expect(cell.getByTestId('flame-diff-legend')).toContainText('within the spread between repeats (4 and 4 runs)');
    await expect.poll(() => huedPixels(page)).toBeGreaterThan(100);
  } else {
    await expect(cell.getByTestId('flame-diff-few')).toContainText('fewer than 3 repeats on a side are too few to tell a change from noise');
    expect(await huedPixels(page)).toBe(0);
  }
  const rows = cell.getByTestId('flame-diff-table').locator('tbody tr');
  await expect(rows.first()).toBeVisible();
  await expect(rows.first().locator('td.delta').first()).toHaveText(/^[+−]\d+\.\d+ pp$|^0 pp$/);
  if (shippedPair) await expect(cell.getByTestId('flame-diff-table').locator('.noise-mark').first()).toBeVisible();
  else await expect(cell.getByTestId('flame-diff-table').locator('.noise-mark')).toHaveCount(0);
  await shot(page, 'flame-06-diff');

  const frame = await frameAt(page, 2);
  await expect(page.getByTestId('flame-tooltip')).toContainText('change');
  await shot(page, 'flame-07-diff-tooltip');
  await page.mouse.click(frame.x, frame.y);
  await expect(page).toHaveURL(/cell=flame:v=diff;z=/);

  const before = await cell.getByLabel('Before capture').inputValue();
  const after = await cell.getByLabel('After capture').inputValue();
  await cell.getByRole('button', { name: 'Swap sides' }).click();
  await expect(cell.getByLabel('Before capture')).toHaveValue(after);
  await expect(cell.getByLabel('After capture')).toHaveValue(before);
  await expect(page).toHaveURL(new RegExp(`a=${after};b=${before}`));
  await cell.getByRole('button', { name: 'total share' }).click();
  await expect(page).toHaveURL(/;c=total/);
  await cell.getByRole('button', { name: 'Total', exact: true }).click();
  await expect(page).toHaveURL(/;by=total/);
  await shot(page, 'flame-08-diff-swapped-total');

  await cell.locator('.flame-export button').first().click();
  const svg = await page.request.get((await cell.locator('.flame-export .menu-link').first().getAttribute('href'))!);
  expect(await svg.text()).toContain('Differential flame graph');
  await page.keyboard.press('Escape');

  // The pair shows the workload's own tasks (fio's) by default; "All tasks" is one click away and
  // kept in the URL.
  await page.goto(`/compare?v=1&captures=${ids[0]},${ids[1]}&baseline=${ids[0]}&cell=flame:v=diff`);
  const command = cell.getByLabel('Command, both sides');
  await expect(command).toHaveValue('fio');
  await expect(command.locator('option:checked')).toHaveText('fio (the workload)');
  await expect(cell.getByTestId('flame-diff-summary')).toBeVisible();
  // its exports are of what it shows: fio's tasks (the SVG and folded links carry comm=fio)
  const exportHrefs = async () => {
    await cell.locator('.flame-export button').first().click();
    const hrefs = await cell.locator('.flame-export .menu-link').evaluateAll((els) => els.map((e) => e.getAttribute('href') ?? ''));
    await page.keyboard.press('Escape');
    return hrefs.slice(0, 2).map((h) => new URL(h, 'http://x').searchParams);
  };
  for (const q of await exportHrefs()) expect(q.get('comm')).toBe('fio');
  await command.selectOption({ label: 'All tasks' });
  await expect(page).toHaveURL(/cell=flame:v=diff;comm=\*/);
  await expect(command).toHaveValue('');
  for (const q of await exportHrefs()) expect(q.get('comm')).toBeNull(); // all tasks: no filter, not comm=*
  await page.reload();
  await expect(cell.getByLabel('Command, both sides')).toHaveValue('');
  // "All tasks" kept when going back to one capture's graph: every sample, not none
  await cell.getByRole('button', { name: 'Flame graph', exact: true }).click();
  await expect(page).toHaveURL(/cell=flame:comm=\*/);
  await expect(cell.getByTestId('flame-summary').locator('strong').first()).not.toHaveText('0');
  await expect(cell.getByLabel('Task', { exact: true })).toHaveValue('all');
});

test("a notebook of one capture asks for no comparison of captures; one of two does and shows what differs", async ({ page }) => {
  const asked: string[] = [];
  page.on('request', (r) => r.url().includes('/api/compare/fio') && asked.push(r.url()));
  await page.goto(`/compare?v=1&captures=${ids[0]}&baseline=${ids[0]}&cell=flame`);
  await expect(page.getByTestId('flame-canvas')).toBeVisible();
  await expect(page.getByTestId('flame-top-table')).toHaveAttribute('aria-busy', 'false');
  await expect(page.locator('.nb-header')).toBeVisible();
  expect(asked).toEqual([]);
  await expect(page.locator('.nb-header')).not.toContainText('Differing host facts');
  await page.goto(`/compare?v=1&captures=${ids[0]},${ids[1]}&baseline=${ids[0]}&cell=flame`);
  await expect(page.locator('.nb-header')).toContainText('Differing host facts');
  expect(asked).toHaveLength(1);
});

/** The API's answer for a synthetic tree of n nodes, served as capture `id`. */
function syntheticAnswer(id: string, n: number, seed = 1): string {
  const s = syntheticTree(n, seed);
  return JSON.stringify({
    capture: { id, label: `synthetic ${n} nodes`, kernel: null },
    filters: { event: 'cpu-clock', runs: null, cpus: null, tid: null, comm: null, from_ns: null, to_ns: null },
    weight_unit: 'count',
    total_weight: s.self_weight.reduce((a, b) => a + b, 0),
    total_samples: s.self_samples.reduce((a, b) => a + b, 0),
    stackless_samples: 0,
    events: [{ event: 'cpu-clock', samples: 1, weight: 1, with_stack: 1 }],
    runs: [{ id: 'r000', index: 0, repeat: 0, params: {}, samples: 1, duration_ns: 1 }],
    cpus: [],
    tasks: [],
    comms: [],
    tree: { names: s.names, name: s.name, depth: s.depth, self_weight: s.self_weight, self_samples: s.self_samples },
    notes: [],
    elapsed_ms: 0,
  });
}

test('a zoom reads no layout before its frame, and the root stays in view', async ({ page }) => {
  const body = syntheticAnswer('synthetic20k', 20_000, 3);
  await page.route('**/api/captures/synthetic20k/flame*', (route) => route.fulfill({ status: 200, contentType: 'application/json', body }));
  await page.goto('/compare?v=1&captures=synthetic20k&baseline=synthetic20k&cell=flame');
  const chart = page.getByTestId('flame-chart');
  await expect(page.getByTestId('flame-canvas')).toBeVisible({ timeout: 30_000 });
  await chart.scrollIntoViewIfNeeded();
  // taller than its box, so it scrolls; the root row (the graph's bottom) is at the box's bottom
  const gap = () =>
    chart.evaluate((el) => {
      const box = el.getBoundingClientRect();
      const graph = el.querySelector('.flame-canvas-box')!.getBoundingClientRect();
      return { scrolls: el.scrollHeight > el.clientHeight + 16, gap: Math.round(graph.bottom - (box.top + el.clientTop + el.clientHeight)) };
    });
  expect(await gap()).toEqual({ scrolls: true, gap: 0 });
  // the canvas is the box's view, not the whole graph: it fills the view wherever the graph is
  // scrolled to, and is drawn with the rows there (data-top: the graph's y at the view's top)
  const view = () =>
    chart.evaluate((el) => {
      const box = el.getBoundingClientRect();
      const c = el.querySelector('canvas')!;
      const r = c.getBoundingClientRect();
      const graph = el.querySelector('.flame-canvas-box')!.getBoundingClientRect();
      return {
        fills: Math.round(r.top - (box.top + el.clientTop)) === 0 && Math.round(r.height) === el.clientHeight && c.height === Math.round(el.clientHeight * devicePixelRatio),
        drawnFrom: Number(c.dataset.top) - Math.round(box.top + el.clientTop - graph.top),
      };
    });
  expect(await view()).toEqual({ fills: true, drawnFrom: 0 });
  // From the click to the frame that shows the zoom, nothing asks for the layout (a scroll
  // position or a size read after the render forces a synchronous layout inside the click).
  await page.evaluate(() => {
    const w = window as unknown as { __layoutReads: string[] };
    w.__layoutReads = [];
    // the page's own code only (the test runner's trace snapshots read scroll positions too)
    const note = (what: string) => {
      if (new Error().stack?.includes('/assets/')) w.__layoutReads.push(what);
    };
    const spy = (proto: object, prop: string) => {
      const d = Object.getOwnPropertyDescriptor(proto, prop)!;
      Object.defineProperty(proto, prop, {
        configurable: true,
        get() {
          note(`get ${prop}`);
          return d.get!.call(this);
        },
        set: d.set
          ? function (this: Element, v: unknown) {
              note(`set ${prop}`);
              d.set!.call(this, v);
            }
          : undefined,
      });
    };
    for (const p of ['scrollTop', 'scrollHeight', 'clientHeight', 'offsetHeight']) spy(p.startsWith('offset') ? HTMLElement.prototype : Element.prototype, p);
  });
  const f = await frameAt(page, 2);
  await page.mouse.click(f.x, f.y);
  await expect(page.getByTestId('flame-breadcrumb')).toContainText(f.name);
  const reads = await page.evaluate(() => (window as unknown as { __layoutReads: string[] }).__layoutReads);
  expect(reads).toEqual([]);
  expect(await gap()).toEqual({ scrolls: true, gap: 0 });
  await expect(page).toHaveURL(/cell=flame:z=/);
  // scrolled up by the user, a zoom out scrolls back down to the root
  await page.mouse.move(f.x, f.y - 200);
  await page.mouse.wheel(0, -300);
  await expect.poll(async () => (await gap()).gap).toBeGreaterThan(100);
  await expect.poll(view).toEqual({ fills: true, drawnFrom: 0 });
  await page.mouse.move(0, 0);
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('flame-breadcrumb')).not.toContainText(f.name);
  await expect.poll(gap).toEqual({ scrolls: true, gap: 0 });
  await expect.poll(view).toEqual({ fills: true, drawnFrom: 0 });
  await shot(page, 'flame-08-zoom-scroll');
});

test("a zoom's top functions table comes after the frame that shows the zoom, also when made before", async ({ page }) => {
  const body = syntheticAnswer('synthetic20k', 20_000, 3);
  await page.route('**/api/captures/synthetic20k/flame*', (route) => route.fulfill({ status: 200, contentType: 'application/json', body }));
  await page.goto('/compare?v=1&captures=synthetic20k&baseline=synthetic20k&cell=flame');
  const table = page.getByTestId('flame-top-table');
  await expect(table).toHaveAttribute('aria-busy', 'false', { timeout: 30_000 });
  // zoom in (its table made), back to the root, and in again: the second time its table is made already
  const rootRows = await table.locator('tbody').innerText();
  const f = await frameAt(page, 2);
  await page.mouse.click(f.x, f.y);
  await expect(page.locator('.flame-table-head h3')).toContainText(`under ${f.name}`);
  await expect(table).toHaveAttribute('aria-busy', 'false');
  const zoomedRows = await table.locator('tbody').innerText();
  expect(zoomedRows).not.toBe(rootRows);
  await page.getByTestId('flame-breadcrumb').getByRole('button').first().click();
  await expect.poll(() => table.locator('tbody').innerText()).toBe(rootRows);
  // frames counted by requestAnimationFrame; the graph's draw and each change of the table's rows
  // note the frame they happen in
  await page.evaluate(() => {
    const w = window as unknown as { __frame: number; __drawFrame: number | null; __rowFrames: number[] };
    w.__frame = 0;
    w.__drawFrame = null;
    w.__rowFrames = [];
    const tick = () => {
      w.__frame++;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    const draws = window.__iolensFlameDraws!;
    const push = draws.push.bind(draws);
    draws.push = (...ms: number[]) => {
      w.__drawFrame ??= w.__frame;
      return push(...ms);
    };
    new MutationObserver(() => w.__rowFrames.push(w.__frame)).observe(document.querySelector('[data-testid=flame-top-table] tbody')!, { childList: true, subtree: true, characterData: true });
  });
  await page.mouse.click(f.x, f.y);
  await expect.poll(() => table.locator('tbody').innerText()).toBe(zoomedRows);
  const seen = await page.evaluate(() => {
    const w = window as unknown as { __drawFrame: number | null; __rowFrames: number[] };
    return { draw: w.__drawFrame, rows: w.__rowFrames };
  });
  // drawn, and the rows changed only once the frame that showed the zoom had run
  expect(seen.draw).not.toBeNull();
  expect(seen.rows.length, 'the rows changed').toBeGreaterThan(0);
  expect(Math.min(...seen.rows), `the frame of the rows' first change (the draw's: ${seen.draw})`).toBeGreaterThan(seen.draw!);
});

test('draws a 500k-node tree: laid out once, only the rects in view drawn; its frame times measured', async ({ page }) => {
  const body = syntheticAnswer('synthetic500k', 500_000);
  await page.route('**/api/captures/synthetic500k/flame*', (route) => route.fulfill({ status: 200, contentType: 'application/json', body }));
  await page.goto('/compare?v=1&captures=synthetic500k&baseline=synthetic500k&cell=flame.full');
  const canvas = page.getByTestId('flame-canvas');
  await expect(canvas).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('flame-summary')).toContainText('500,000 frames');
  // redraws: search on and off, orientation, zoom in and out
  const cell = page.locator('section.cell[data-kind="flame"]');
  const input = cell.getByLabel('Search frames (regular expression)');
  for (const q of ['xfs', 'iomap|blk', '']) {
    await input.fill(q);
    await input.press('Enter');
    await page.waitForTimeout(150);
  }
  for (const m of ['Icicle', 'Flame']) {
    await cell.getByRole('button', { name: m, exact: true }).click();
    await page.waitForTimeout(150);
  }
  for (let k = 0; k < 4; k++) {
    const f = await frameAt(page, 1 + k);
    await page.mouse.click(f.x, f.y);
    await page.waitForTimeout(150);
  }
  await page.mouse.move(0, 0);
  for (let k = 0; k < 4; k++) {
    await page.keyboard.press('Escape');
    await page.waitForTimeout(150);
  }
  const draws = await page.evaluate(() => window.__iolensFlameDraws ?? []);
  const layouts = await page.evaluate(() => window.__iolensFlameLayouts ?? []);
  const rects = Number(await canvas.getAttribute('data-rects'));
  const sorted = [...draws].slice(1).sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  const max = sorted[sorted.length - 1]!;
  // Wall-clock times: on a machine busier than its CPUs (other test suites), they stretch.
  const load = os.loadavg()[0]! / os.cpus().length;
  const line = `500k nodes: layout ${layouts.map((x) => x.toFixed(0)).join(', ')} ms; first frame ${draws[0]!.toFixed(1)} ms; ` +
    `then ${sorted.length} frames median ${median.toFixed(1)} ms, min ${sorted[0]!.toFixed(1)} ms, max ${max.toFixed(1)} ms ` +
    `(${rects} rects at the end; load average per CPU ${load.toFixed(2)})`;
  console.log(line);
  test.info().annotations.push({ type: 'flame-draw', description: line });
  if (shots) fs.writeFileSync(path.join(shots, 'flame-draw-times.txt'), line + '\n' + draws.map((d) => d.toFixed(2)).join('\n') + '\n');
  await shot(page, 'flame-09-500k');
  expect(sorted.length).toBeGreaterThanOrEqual(8);
  // What keeps a frame short, whatever the machine's load: the tree is laid out once (search,
  // orientation and zoom reuse the layout), and a frame draws the frames at least a pixel wide, not
  // the 500,000 (8,742 here). The frame times are the machine's: under 16 ms a frame is
  // bench/flame_speed.mjs's figure (interaction at 451k, quiet), not asserted here (a test asserting
  // it stretched with the load: min 8 ms, median 42 ms at load 10.9 per CPU); only a hang fails.
  expect(layouts).toHaveLength(1);
  expect(rects).toBeGreaterThan(0);
  expect(rects).toBeLessThan(500_000 / 20);
  expect(max, 'a frame hung').toBeLessThan(5_000);
});
