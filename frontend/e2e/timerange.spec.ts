// Time ranges, end to end, on a real capture (datasets/stacks-xfs, or without it the bundle
// e2e/make-flame-bundles.py makes): the subsecond heatmap of the flame cell, a range selected on it
// (the flame graph's totals become that range's), a second range (the difference A vs B), all kept
// through a reload of the permalink. IOLENS_SHOTS=dir saves a screenshot of each state.
import { expect, test, type Page } from '@playwright/test';
import fs from 'node:fs';
import path from 'node:path';
import { huedPixels } from './flameCanvas';
import { drag } from './heatmap';
import { xfsStacksBundle } from './stackBundles';

const shots = process.env.IOLENS_SHOTS;
const tmp = process.env.IOLENS_E2E_TMP ?? fs.mkdtempSync('/tmp/iolens-e2e-');

test.describe.configure({ mode: 'serial' });

const bundle = () => xfsStacksBundle(tmp);

let id = '';
const flame = (page: Page) => page.locator('section.cell[data-kind="flame"]');
const shot = async (page: Page, name: string) => {
  if (shots) await flame(page).screenshot({ path: path.join(shots, `${name}.png`) });
};

const samplesShown = async (page: Page) => Number(((await page.getByTestId('flame-summary').locator('strong').first().textContent()) ?? '').replace(/,/g, ''));

test.beforeAll(async ({ request }) => {
  const r = await request.post('/api/captures', { multipart: { file: { name: 'stacks.iolens.tar.gz', mimeType: 'application/gzip', buffer: fs.readFileSync(bundle()) } } });
  expect(r.ok(), await r.text()).toBeTruthy();
  id = ((await r.json()) as { id: string }).id;
});

test('heatmap: select a range, the flame graph shows that range; a second range gives the difference; a reload keeps both', async ({ page, request }) => {
  await page.goto(`/compare?v=1&captures=${id}&baseline=${id}&cell=flame`);
  await expect(flame(page).getByTestId('flame-canvas')).toBeVisible();
  const whole = await samplesShown(page);
  await flame(page).getByTestId('heatmap-toggle').click();
  await expect(page).toHaveURL(/cell=flame:hm=50$/);
  await expect(page.getByTestId('heatmap-canvas')).toBeVisible();
  await expect(page.getByTestId('heatmap-legend')).toContainText('samples per 20 ms cell');
  await shot(page, 'timerange-heatmap');

  // the heatmap's own counts (the API's, checked against the raw samples in pytest)
  const h = (await (await request.get(`/api/captures/${id}/flame/heatmap?run=r000&rows=50`)).json()) as { counts: number[]; rows: number; cols: number };
  const want = h.counts.slice(0 * 50 + 10, 1 * 50 + 24 + 1).reduce((x, y) => x + y, 0);
  expect(want).toBeGreaterThan(0);

  // from cell (second 0, 200 ms) to cell (second 1, 480 ms): the flame graph of 0.200-1.500 s of r000
  await drag(page, [0, 10], [1, 24]);
  await expect(page).toHaveURL(/runs=r000;t=200000000-1500000000;hm=50/);
  await expect.poll(() => samplesShown(page)).toBe(want);
  expect(want).toBeLessThan(whole);
  await expect(page.getByTestId('heatmap-ranges')).toContainText('A 0.200–1.500 s');
  await shot(page, 'timerange-range-a');

  // Shift+drag over second 2: range B, the view becomes the difference A vs B
  const wantB = h.counts.slice(2 * 50, 3 * 50).reduce((x, y) => x + y, 0);
  await drag(page, [2, 0], [2, 49], true);
  await expect(page).toHaveURL(/tb=2000000000-3000000000/);
  await expect(page.getByTestId('range-diff-note')).toContainText('run r000');
  await expect(page.getByTestId('flame-diff-summary')).toContainText(`B 2.000–3.000 s (${wantB.toLocaleString('en-US')} samples`);
  await expect(page.getByTestId('flame-diff-summary')).toContainText(`A 0.200–1.500 s (${want.toLocaleString('en-US')} samples`);
  await expect(page.getByTestId('flame-diff-table')).toBeVisible();
  // one run a side: too few repeats to judge a change (the compared-metric tables' rule): no frame
  // red or blue, the changes grey with a '?', and the legend says why
  // and, the ranges being of one run, no `--repeat 3` advice: the ranges over every run instead
  await expect(page.getByTestId('flame-diff-few')).toContainText("Both ranges are of one run of this capture's 4: fewer than 3 repeats are too few to tell a change from noise");
  await expect(page.getByTestId('flame-diff-few')).not.toContainText('--repeat');
  await expect(page.getByTestId('range-every-run')).toHaveText('the ranges over every run (4)');
  await expect(page.getByTestId('flame-diff-table').locator('.few-mark').first()).toBeVisible();
  await expect(page.getByTestId('flame-diff-table').locator('td.grew, td.shrank')).toHaveCount(0);
  expect(await huedPixels(page)).toBe(0);
  await shot(page, 'timerange-range-diff');

  // the permalink keeps both ranges
  await page.reload();
  await expect(page.getByTestId('flame-diff-summary')).toContainText('B 2.000–3.000 s');
  await expect(page.getByTestId('heatmap-ranges')).toContainText('A 0.200–1.500 s');
  await shot(page, 'timerange-reloaded');

  // clearing B goes back to range A's flame graph
  await page.getByTestId('clear-range-b').click();
  await expect.poll(() => samplesShown(page)).toBe(want);
});

test('two ranges of one run of a capture of 4: one click gives the ranges over every run, coloured red and blue', async ({ page }) => {
  await page.goto(`/compare?v=1&captures=${id}&baseline=${id}&cell=flame:runs=r000;t=200000000-1500000000;hm=50;tb=2000000000-3000000000`);
  await expect(page.getByTestId('flame-diff-legend')).toHaveAttribute('data-few', 'true');
  await shot(page, 'timerange-range-diff-one-run');
  await page.getByTestId('range-every-run').click();
  await expect(page).toHaveURL(/cell=flame:t=200000000-1500000000;hm=50;tb=2000000000-3000000000$/);
  await expect(page.getByTestId('range-diff-note')).toContainText('every run');
  await expect(page.getByTestId('flame-diff-summary')).toContainText('4 runs');
  await expect(page.getByTestId('flame-diff-legend')).not.toHaveAttribute('data-few', 'true');
  await expect(page.getByTestId('flame-diff-few')).toHaveCount(0);
  await expect.poll(() => huedPixels(page)).toBeGreaterThan(0);
  await shot(page, 'timerange-range-diff-every-run');
});
