// Views of the stacks, end to end, on a real capture (datasets/stacks-xfs, or without it the
// bundle e2e/make-flame-bundles.py makes): left-heavy order, the inverted call tree, the sandwich
// of a function, the transforms; each kept in the URL and through a reload. Runs against a real
// `iolens serve` (playwright.config.ts). IOLENS_SHOTS=dir also saves a screenshot of each view.
import { type Page } from '@playwright/test';
import { expect, test } from './filePage';
import fs from 'node:fs';
import path from 'node:path';
import { xfsStacksBundle } from './stackBundles';

const shots = process.env.IOLENS_SHOTS;
const tmp = process.env.IOLENS_E2E_TMP ?? fs.mkdtempSync('/tmp/iolens-e2e-');

test.describe.configure({ mode: 'serial' });

const bundle = () => xfsStacksBundle(tmp);

let url = '';
const cell = (page: Page) => page.locator('section.cell[data-kind="flame"]');
const shot = async (page: Page, name: string) => {
  if (shots) await cell(page).screenshot({ path: path.join(shots, `${name}.png`) });
};

/** The name of the frame under (fx of the width, depth from the bottom) of a canvas, from its tooltip.
 * With `anyFrame`, the first frame along that row, from fx on, that is one function (not a block of
 * frames narrower than a pixel: the stacks of a busy machine have many). */
async function frameName(page: Page, testid: string, depthFromBottom: number, fx: number, anyFrame = false): Promise<{ name: string; x: number; y: number }> {
  await page.getByTestId(testid).evaluate((el) => el.closest('.flame-chart')!.scrollIntoView({ block: 'end' }));
  const box = (await page.getByTestId(testid).boundingBox())!;
  const y = box.y + box.height - depthFromBottom * 16 - 8;
  const xs = anyFrame ? [fx, 0.3, 0.7, 0.15, 0.85, 0.05, 0.95, 0.4, 0.6, 0.25, 0.75] : [fx];
  for (const f of xs) {
    const x = box.x + f * box.width;
    await page.mouse.move(x, y);
    const tip = page.getByTestId('flame-tooltip').locator('.tt-name');
    const name = (await tip.count()) ? ((await tip.textContent()) ?? '') : '';
    if (!anyFrame || (name && !/narrower than a pixel/.test(name))) return { name, x, y };
  }
  throw new Error(`no single frame on row ${depthFromBottom} of ${testid}`);
}

test.beforeAll(async ({ request }) => {
  const r = await request.post('/api/captures', { multipart: { file: { name: 'stacks.iolens.tar.gz', mimeType: 'application/gzip', buffer: fs.readFileSync(bundle()) } } });
  expect(r.ok(), await r.text()).toBeTruthy();
  const id = ((await r.json()) as { id: string }).id;
  url = `/compare?v=1&captures=${id}&baseline=${id}&cell=flame`;
});

test('left heavy: the heaviest command and function at the left, kept in the link', async ({ page }) => {
  await page.goto(url);
  await expect(cell(page).getByTestId('flame-canvas')).toBeVisible();
  await cell(page).getByRole('button', { name: 'Left heavy' }).click();
  await expect(page).toHaveURL(/cell=flame:o=heavy$/);
  // the leftmost command is the widest one (the heaviest first at every level)
  const left = await frameName(page, 'flame-canvas', 1, 0.01);
  await expect(page.getByTestId('flame-tooltip')).toBeVisible();
  const leftPct = Number((await page.getByTestId('flame-tooltip').locator('td.num').first().textContent())!.replace('%', ''));
  const right = await frameName(page, 'flame-canvas', 1, 0.99);
  const rightPct = Number((await page.getByTestId('flame-tooltip').locator('td.num').first().textContent())!.replace('%', ''));
  expect(left.name).not.toBe(right.name);
  expect(leftPct).toBeGreaterThanOrEqual(rightPct);
  await page.mouse.move(0, 0);
  await shot(page, 'stacks-01-left-heavy');
  // key 1: back to names; key 2: left heavy again; the reload keeps it
  await page.keyboard.press('1');
  await expect(page).toHaveURL(/cell=flame$/);
  await page.keyboard.press('2');
  await expect(page).toHaveURL(/cell=flame:o=heavy$/);
  await page.reload();
  await expect(cell(page).getByRole('button', { name: 'Left heavy' })).toHaveAttribute('aria-pressed', 'true');
});

test('inverted call tree: functions where samples end, expandable to their callers, sortable', async ({ page }) => {
  await page.goto(url);
  await expect(cell(page).getByTestId('flame-canvas')).toBeVisible();
  await page.keyboard.press('4');
  await expect(page).toHaveURL(/cell=flame:s=inverted$/);
  const table = cell(page).getByTestId('inverted-table');
  const rows = table.locator('tbody tr');
  await expect(rows.first()).toBeVisible();
  // by self: the first row's self is the largest
  const pct = async (r: number, col: number) => Number((await rows.nth(r).locator('td').nth(col).textContent())!.replace('%', ''));
  expect(await pct(0, 1)).toBeGreaterThanOrEqual(await pct(1, 1));
  // sort by total
  await table.getByRole('button', { name: /^Total/ }).click();
  await expect(page).toHaveURL(/s=inverted;?.*by=total|by=total;s=inverted/);
  expect(await pct(0, 4)).toBeGreaterThanOrEqual(await pct(1, 4));
  // expand the first row: its callers, each at most the function's total
  const top = await pct(0, 4);
  const toggle = rows.first().getByRole('button', { name: /Expand the callers of/ });
  await toggle.click();
  const callers = table.locator('tbody tr[data-depth="1"]');
  await expect(callers.first()).toBeVisible();
  const n = await callers.count();
  for (let k = 0; k < n; k++) expect(Number((await callers.nth(k).locator('td').nth(4).textContent())!.replace('%', ''))).toBeLessThanOrEqual(top + 1e-9);
  await shot(page, 'stacks-02-inverted');
  // the arrow keys collapse and expand
  await rows.first().getByRole('button', { name: /Collapse the callers of/ }).press('ArrowLeft');
  await expect(callers).toHaveCount(0);
  await rows.first().getByRole('button', { name: /Expand the callers of/ }).press('ArrowRight');
  await expect(callers.first()).toBeVisible();
  // by name
  await table.getByRole('button', { name: /^Function/ }).click();
  await expect(page).toHaveURL(/by=name/);
});

test('sandwich: one click from the top functions, callers above and callees below, same totals', async ({ page }) => {
  await page.goto(url);
  await expect(cell(page).getByTestId('flame-top-table')).toBeVisible();
  // the function with the largest total
  await cell(page).getByRole('button', { name: 'By total' }).click();
  const first = cell(page).getByTestId('flame-top-table').locator('tbody tr').first();
  const fn = (await first.locator('.fn-name').textContent())!;
  const total = (await first.locator('td').nth(5).textContent())!;
  await first.getByRole('button', { name: `Sandwich of ${fn}` }).click();
  await expect(page).toHaveURL(new RegExp(`s=sandwich;fn=${encodeURIComponent(encodeURIComponent(fn)).replace(/[[\]().*+?^$|\\]/g, '\\$&')}`));
  const sw = cell(page).getByTestId('sandwich');
  await expect(sw.getByTestId('sandwich-summary')).toContainText(`total ${total}`);
  await expect(sw.getByTestId('flame-canvas-callers')).toBeVisible();
  await expect(sw.getByTestId('flame-canvas-callees')).toBeVisible();
  // both halves' root is the function, with its total share
  const root = await frameName(page, 'flame-canvas-callers', 0, 0.5);
  expect(root.name).toBe(fn);
  await expect(page.getByTestId('flame-tooltip')).toContainText('100.0% of the function');
  await page.getByTestId('flame-canvas-callees').scrollIntoViewIfNeeded();
  const cbox = (await page.getByTestId('flame-canvas-callees').boundingBox())!;
  await page.mouse.move(cbox.x + cbox.width / 2, cbox.y + 8);
  await expect(page.getByTestId('flame-tooltip').locator('.tt-name')).toHaveText(fn);
  await page.mouse.move(0, 0);
  await shot(page, 'stacks-03-sandwich');
  // another function typed in the picker; the reload keeps it
  await page.reload();
  await expect(cell(page).getByTestId('sandwich-summary')).toContainText(fn);
});

test('transforms: focus, drop, merge, collapse recursion, in the link, removable', async ({ page }) => {
  await page.goto(url);
  await expect(cell(page).getByTestId('flame-canvas')).toBeVisible();
  const summary = cell(page).getByTestId('flame-summary');
  // right click a function frame: the menu; focus on it
  const f = await frameName(page, 'flame-canvas', 3, 0.5, true);
  await page.mouse.click(f.x, f.y, { button: 'right' });
  const menu = page.getByTestId('function-menu');
  await expect(menu).toContainText(f.name);
  await menu.getByRole('menuitem', { name: /Focus on this function/ }).click();
  await expect(page).toHaveURL(new RegExp(`x=focus:`));
  await expect(summary).toContainText('after the transforms');
  await expect(cell(page).getByTestId('transforms')).toContainText(f.name);
  await page.mouse.move(0, 0);
  await shot(page, 'stacks-04-focus');
  const focusedPct = Number(/after the transforms: ([\d.]+)%/.exec((await summary.textContent())!)![1]);
  expect(focusedPct).toBeGreaterThan(0);
  expect(focusedPct).toBeLessThan(100);
  // the link keeps it
  await page.reload();
  await expect(cell(page).getByTestId('transforms')).toContainText(f.name);
  // remove it: the whole graph again
  await cell(page).getByRole('button', { name: /^Remove: Focus on/ }).click();
  await expect(page).not.toHaveURL(/x=/);
  await expect(summary).not.toContainText('after the transforms');
  // key d on the zoomed frame drops its samples: what is left is the rest
  const g = await frameName(page, 'flame-canvas', 3, 0.5, true);
  await page.mouse.click(g.x, g.y);
  await expect(page).toHaveURL(/z=/);
  await page.mouse.move(0, 0);
  await page.keyboard.press('d');
  await expect(page).toHaveURL(/x=drop:/);
  const dropped = Number(/after the transforms: ([\d.]+)%/.exec((await summary.textContent())!)![1]);
  expect(dropped).toBeLessThan(100);
  // merge and collapse recursion from the menu keep every sample
  await cell(page).getByRole('button', { name: /^Remove: Drop/ }).click();
  const h = await frameName(page, 'flame-canvas', 2, 0.5, true);
  await page.mouse.click(h.x, h.y, { button: 'right' });
  await page.getByTestId('function-menu').getByRole('menuitem', { name: /Merge into callers/ }).click();
  await expect(page).toHaveURL(/x=merge:/);
  await expect(summary).toContainText('after the transforms: 100.0%');
  const k = await frameName(page, 'flame-canvas', 2, 0.5, true);
  await page.mouse.click(k.x, k.y, { button: 'right' });
  await page.getByTestId('function-menu').getByRole('menuitem', { name: /Collapse recursion/ }).click();
  await expect(page).toHaveURL(/x=merge:[^,;]+,rec:/);
  await expect(summary).toContainText('after the transforms: 100.0%');
  await expect(cell(page).getByTestId('transforms').getByRole('listitem')).toHaveCount(2);
  await page.mouse.move(0, 0);
  await shot(page, 'stacks-05-merge-rec');
});

test("runs of [unknown] frames (fio's user stacks): offered, collapsed into one, the tooltip says how many, in the link, removable", async ({ page }) => {
  await page.goto(url);
  await expect(cell(page).getByTestId('flame-canvas')).toBeVisible();
  const summary = cell(page).getByTestId('flame-summary');
  const frames = async () => Number(/([\d,]+) frames/.exec((await summary.textContent())!)![1]!.replace(/,/g, ''));
  const before = await frames();
  // not on by default (perf report, inferno, speedscope show every frame): offered, with the depth it saves
  const offer = cell(page).getByTestId('collapse-unknown');
  await expect(offer).toContainText(/up to \d+ deep/);
  expect(Number(/up to (\d+) deep/.exec((await offer.textContent())!)![1])).toBeGreaterThan(20);
  await offer.click();
  await expect(page).toHaveURL(/x=drec:/);
  await expect(offer).toHaveCount(0);
  await expect(cell(page).getByTestId('transforms')).toContainText('Collapse direct recursion of [unknown]');
  await expect(summary).toContainText('after the transforms: 100.0%');
  expect(await frames()).toBeLessThan(before);
  await page.mouse.move(0, 0);
  await shot(page, 'stacks-06-unknown-collapsed');
  // the sandwich of a function fio calls through such a chain: its callers' [unknown] frame says how many it stands for
  await page.goto(`${page.url()};s=sandwich;fn=fio_gettime`);
  await expect(cell(page).getByTestId('flame-canvas-callers')).toBeVisible();
  await cell(page).getByTestId('flame-canvas-callers').scrollIntoViewIfNeeded();
  const box = (await cell(page).getByTestId('flame-canvas-callers').boundingBox())!;
  const tip = page.getByTestId('flame-tooltip');
  let found = '';
  for (const fx of [0.5, 0.2, 0.8, 0.05, 0.35, 0.65, 0.95]) {
    await page.mouse.move(box.x + fx * box.width, box.y + box.height - 16 - 8);
    if ((await tip.locator('.tt-name').count()) && (await tip.locator('.tt-name').textContent()) === '[unknown]') {
      found = (await tip.getByTestId('tt-span').textContent()) ?? '';
      break;
    }
  }
  expect(found).toMatch(/^Collapsed\d+( to \d+)? frames in a row, as recorded/);
  await shot(page, 'stacks-07-unknown-sandwich');
  // the link keeps it; removing it brings the offer back
  await page.reload();
  await expect(cell(page).getByTestId('transforms')).toContainText('[unknown]');
  await cell(page).getByRole('button', { name: 'Remove: Collapse direct recursion of [unknown]' }).click();
  await expect(page).not.toHaveURL(/x=/);
  await expect(cell(page).getByTestId('collapse-unknown')).toBeVisible();
});
