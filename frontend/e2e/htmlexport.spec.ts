// The HTML export of a notebook, opened from disk as a reader would: the shipped datasets
// (datasets/) uploaded to the real server, one notebook with a cell of every view kind, exported
// as HTML and written to a file; Chromium opens it with file://. Every chart is inline SVG (counted
// per cell kind), no request leaves the file (not even to the server that made it), and the page
// fits 1440 px without horizontal scrolling. IOLENS_SHOTS=dir saves a screenshot of each page.
// Runs against a real `iolens serve` (playwright.config.ts); does not assume an empty library.
import { expect, test, type APIRequestContext } from '@playwright/test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const shots = process.env.IOLENS_SHOTS;
const tmp = fs.mkdtempSync(path.join(process.env.IOLENS_E2E_TMP ?? os.tmpdir(), 'html-export-'));

test.describe.configure({ mode: 'serial' });

function bundle(folder: string, part: string): string {
  const dir = path.join(repo, 'datasets', folder);
  const f = fs.existsSync(dir) ? fs.readdirSync(dir).find((n) => n.includes(part) && n.endsWith('.iolens.tar.gz')) : undefined;
  if (!f) throw new Error(`datasets/${folder}: no bundle named like *${part}*`);
  return path.join(dir, f);
}

async function upload(request: APIRequestContext, file: string): Promise<string> {
  const r = await request.post('/api/captures', { multipart: { file: { name: path.basename(file), mimeType: 'application/gzip', buffer: fs.readFileSync(file) } } });
  expect(r.ok(), await r.text()).toBeTruthy();
  return ((await r.json()) as { id: string }).id;
}

// notebook: its two captures (the first is the baseline) and cells (kind, state, charts drawn)
const BOOKS: Record<string, { bundles: [string, string][]; cells: [string, string, number][] }> = {
  probes: {
    bundles: [['vmlab-deb61-vs-deb612', 'dio-probes-deb61-xfs'], ['vmlab-deb61-vs-deb612', 'dio-probes-deb612-xfs']],
    cells: [['flame', '', 1], ['flame', 'v=diff', 1], ['block', '', 6], ['sched', '', 1]],
  },
  sweep: {
    bundles: [['sweep-fs-dio', 'ext4-dio-sweep'], ['sweep-fs-dio', 'xfs-dio-sweep']],
    cells: [['sweepline', '', 1], ['fiolog', '', 1]],
  },
  trace: {
    bundles: [['xfs-ail-trace', 'logbsize-32k'], ['xfs-ail-trace', 'logbsize-256k']],
    cells: [['events', '', 2], ['monitors', '', 1]],
  },
  lock: {
    bundles: [['lockstat-kernel-doc', 'example1'], ['lockstat-kernel-doc', 'example2']],
    cells: [['lockstat', '', 1]],
  },
};

for (const [name, book] of Object.entries(BOOKS)) {
  test(`the HTML export of a ${name} notebook opens from disk with every chart, asks nothing of any server, fits 1440 px`, async ({ request, browser }) => {
    test.setTimeout(180_000);
    const ids: string[] = [];
    for (const [folder, part] of book.bundles) ids.push(await upload(request, bundle(folder, part)));
    const doc = {
      format_version: 1,
      title: `${name}: every chart`,
      captures: ids,
      baseline: ids[0],
      cells: [{ type: 'markdown', text: `# ${name}\n\nThe charts of this notebook, from disk.` }, ...book.cells.map(([kind, state]) => ({ type: 'view', kind, state, full: false }))],
    };
    const saved = await request.post('/api/notebooks', { data: { document: doc, parent: null } });
    expect(saved.ok(), await saved.text()).toBeTruthy();
    const id = ((await saved.json()) as { id: string }).id;
    const r = await request.get(`/api/notebooks/${id}/export?format=html`);
    expect(r.ok()).toBeTruthy();
    const file = path.join(tmp, `${name}.html`);
    fs.writeFileSync(file, await r.text());

    // a fresh context: nothing cached, every request seen (and refused: a file needs none)
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const requests: string[] = [];
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:')) return route.continue();
      requests.push(url);
      return route.abort();
    });
    page.on('request', (q) => {
      if (!q.url().startsWith('file:') && !requests.includes(q.url())) requests.push(q.url());
    });
    await page.goto(`file://${file}`);
    await page.waitForLoadState('load');
    await expect(page.locator('h1')).toHaveText(`${name}: every chart`);

    // every view cell, in order, with its charts: one inline SVG per chart, drawn (not empty)
    const sections = page.locator('section.cell[data-kind]:not([data-kind="markdown"])');
    await expect(sections).toHaveCount(book.cells.length);
    for (const [i, [kind, state, charts]] of book.cells.entries()) {
      const sec = sections.nth(i);
      await expect(sec, `${kind} ${state}`).toHaveAttribute('data-kind', kind);
      await expect(sec.locator('figure.chart > svg'), `${kind} ${state}`).toHaveCount(charts);
      await expect(sec.locator('text=not part of the static export')).toHaveCount(0);
      for (const svg of await sec.locator('figure.chart > svg').all()) {
        const box = (await svg.boundingBox())!;
        expect(box.width, `${kind}: chart width`).toBeGreaterThan(900);
        expect(box.height).toBeGreaterThan(40);
        expect(await svg.locator('path, rect').count(), `${kind}: marks drawn`).toBeGreaterThan(0);
      }
      // the key numbers below each chart
      expect(await sec.locator('table.numbers').count(), `${kind}: numbers`).toBeGreaterThanOrEqual(charts);
    }
    // no horizontal overflow of the page at 1440 px, and no chart wider than its cell
    const widths = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
      wide: [...document.querySelectorAll('figure.chart, table')].filter((el) => {
        const box = el.getBoundingClientRect();
        const cell = (el.closest('section') ?? document.body).getBoundingClientRect();
        return box.right > cell.right + 1;
      }).length,
    }));
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    expect(widths.wide).toBe(0);
    expect(requests, 'requests made by the exported file').toEqual([]);
    if (shots) await page.screenshot({ path: path.join(shots, `html-export-${name}.png`), fullPage: true });
    await context.close();
  });
}

// The app's Export menu on a notebook never saved: it saves first and the page moves to /n/ID;
// the text report then opens there, and so does the HTML file (a download), as for a saved one.
test('Export on an unsaved notebook saves it, then opens the text report and downloads the HTML', async ({ page, request }) => {
  const ids: string[] = [];
  for (const part of ['example1', 'example2']) ids.push(await upload(request, bundle('lockstat-kernel-doc', part)));
  const unsaved = `/compare?v=1&captures=${ids[0]},${ids[1]}&baseline=${ids[0]}&cell=lockstat`;
  await page.goto(unsaved);
  await expect(page.getByTestId('save-status')).toHaveText('not saved');
  await page.getByRole('button', { name: 'Export ▾' }).click();
  await page.getByRole('menuitem', { name: /Text report/ }).click();
  await expect(page).toHaveURL(/\/n\/[0-9a-z]{10}$/);
  const id = page.url().split('/n/')[1]!;
  await expect(page.getByRole('dialog', { name: 'Text report' })).toContainText(`version ${id}`, { timeout: 60_000 });
  const text = await page.getByTestId('export-text').innerText();
  expect(text).toContain(`/n/${id}`); // the permalink at the top
  if (shots) await page.screenshot({ path: path.join(shots, 'export-unsaved-text.png') });
  await page.keyboard.press('Escape');

  // HTML from another unsaved notebook (a new title: a new version)
  await page.goto(`${unsaved}&title=${encodeURIComponent('Exported before saving')}`);
  await expect(page.getByTestId('save-status')).toHaveText('not saved');
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export ▾' }).click();
  await page.getByRole('menuitem', { name: /HTML file/ }).click();
  await expect(page).toHaveURL(/\/n\/[0-9a-z]{10}$/);
  const hid = page.url().split('/n/')[1]!;
  expect(hid).not.toBe(id);
  expect((await download).suggestedFilename()).toBe(`iolens-${hid}.html`);
});
