// The loop a user goes through: empty library -> upload bundles -> compare -> permalink.
// Runs against a real `iolens serve` on a fresh database (see playwright.config.ts).
import type { Page } from '@playwright/test';
import { expect, test } from './filePage';
import path from 'node:path';

const bundles = (process.env.IOLENS_E2E_BUNDLES ?? '').split(path.delimiter).filter(Boolean);

test.describe.configure({ mode: 'serial' });

let compareUrl = '';
let tableText = '';
const labels: string[] = [];

async function fioTableText(page: Page): Promise<string> {
  const table = page.locator('section.cell[data-kind="fio"] .fio-table').first();
  await expect(table).toBeVisible();
  return (await table.innerText()).replace(/\s+/g, ' ').trim();
}

test('empty library explains what to do next', async ({ page }) => {
  await page.goto('/');
  const empty = page.getByTestId('empty-state');
  await expect(empty).toBeVisible();
  await expect(empty).toContainText('No captures yet');
  await expect(empty).toContainText('iolens-collect run');
  await expect(empty).toContainText('iolens ingest');
  await expect(empty).toContainText('drop it anywhere on this page');
});

test('upload two bundles, compare them, and share the link', async ({ page, browser }) => {
  expect(bundles.length, 'two bundles (see e2e/global-setup.ts)').toBeGreaterThanOrEqual(2);
  await page.goto('/');
  await page.getByTestId('bundle-input').setInputFiles(bundles.slice(0, 2));

  // Both uploads go through: progress complete, a result per file.
  const items = page.getByTestId('upload-item');
  await expect(items).toHaveCount(2);
  for (let i = 0; i < 2; i++) {
    await expect(items.nth(i)).toContainText(/new capture|already present/);
    await expect(items.nth(i)).toHaveClass(/upload-done/);
    const bar = items.nth(i).locator('progress');
    const max = await bar.getAttribute('max');
    await expect(bar).toHaveAttribute('value', max!);
  }
  for (let i = 0; i < 2; i++) labels.push((await items.nth(i).locator('.upload-status a').innerText()).trim());

  // Both in the library.
  const rows = page.locator('.library-table tbody tr[data-capture-id]');
  await expect(rows).toHaveCount(2);
  for (const l of labels) await expect(page.locator('.library-table')).toContainText(l);

  // Select both, make the second one the baseline, compare.
  const [first, second] = labels as [string, string];
  await page.getByRole('checkbox', { name: `Select ${first}`, exact: true }).check();
  await page.getByRole('checkbox', { name: `Select ${second}`, exact: true }).check();
  await page.getByRole('radio', { name: `Baseline: ${second}`, exact: true }).check();
  await page.getByRole('button', { name: /^Compare 2/ }).click();

  // "Compare these captures": a notebook with a title, a Markdown intro and the fio table.
  // (Other kinds that apply to these captures follow the fio table.)
  await expect(page).toHaveURL(/\/compare\?v=1&captures=[^&]+,[^&]+&baseline=[^&]+&cell=note:[^&]+&cell=fio(&cell=[^&]+)*&title=[^&]+$/);
  await expect(page.locator('section.cell[data-kind="note"]')).toContainText(`against the baseline ${second}`);
  // The baseline is the first column and is labelled so.
  await expect(page.locator('.fio-table .cap-head').first()).toContainText(second);
  await expect(page.locator('.fio-table .cap-head').first()).toContainText('baseline');
  await expect(page.locator('.fio-table th.ratio-head').first()).toHaveText('vs base');
  await expect(page.locator('.fio-table td.ratio').first()).toHaveText(/^[+-±]\d+\.\d %$|^×\d/);
  await expect(page.locator('.fio-table tbody tr[data-metric="iops"]').first()).toContainText('IO/s');
  await expect(page.locator('.nb-header')).toContainText('Differing host facts');
  compareUrl = page.url();
  tableText = await fioTableText(page);

  // `y` offers to save first (a short link); the long link that holds the view is one click away.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.keyboard.press('y');
  await page.getByRole('button', { name: 'Copy the long link' }).click();
  await expect(page.getByRole('status')).toHaveText(`Copied the long link (${compareUrl.length} characters, not saved)`);
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(compareUrl);

  // Reload: the same view from the URL alone.
  await page.reload();
  expect(await fioTableText(page)).toBe(tableText);

  // Another browser context (fresh profile: no storage, no cache): the permalink shows the same.
  const other = await browser.newContext();
  const p2 = await other.newPage();
  await p2.goto(compareUrl);
  expect(await fioTableText(p2)).toBe(tableText);
  await other.close();
});

test('dropping a bundle on the page uploads it; the same bundle again is "already present"', async ({ page }) => {
  const fs = await import('node:fs');
  await page.goto('/');
  await expect(page.locator('.library-table')).toBeVisible();
  const bytes = [...fs.readFileSync(bundles[0]!)];
  await page.evaluate(
    ({ bytes, name }) => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array(bytes)], name, { type: 'application/gzip' }));
      const target = document.querySelector('.library-table')!;
      for (const type of ['dragenter', 'dragover', 'drop']) target.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
    },
    { bytes, name: path.basename(bundles[0]!) },
  );
  const item = page.getByTestId('upload-item');
  await expect(item).toHaveClass(/upload-done/);
  await expect(item).toContainText('already present');
  await expect(page.locator('.library-table tbody tr[data-capture-id]')).toHaveCount(2);
});

test('a non-bundle upload says what is wrong', async ({ page }) => {
  await page.goto('/');
  await page.getByTestId('bundle-input').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('this is not a capture bundle\n') });
  const item = page.getByTestId('upload-item');
  await expect(item).toHaveClass(/upload-failed/);
  const err = item.locator('.error-box');
  await expect(err).toContainText('notes.txt was not ingested');
  await expect(err).toContainText(/not a tar archive/i);
  await expect(err.locator('.error-detail')).toContainText('file');
});

test('notebook cells: add, move, full width and remove are kept in the link', async ({ page }) => {
  test.skip(!compareUrl, 'needs the comparison from the upload test');
  await page.goto(compareUrl.replace(/&cell=.*$/, '&cell=fio'));
  await page.getByRole('button', { name: '+ Add cell' }).click();
  await page.getByRole('menuitem', { name: /Text/ }).click();
  await page.getByPlaceholder(/What should the reader look at/).fill('ext4: look at p99.9 & sys CPU');
  await page.getByRole('button', { name: 'Done' }).click();
  await expect(page).toHaveURL(/&cell=note:ext4:%20look%20at%20p99.9%20%26%20sys%20CPU$/);
  await page.locator('section.cell[data-kind="note"]').getByRole('button', { name: 'Cell menu' }).click();
  await page.getByRole('menuitem', { name: 'Move up' }).click();
  await expect(page.locator('section.cell').first()).toHaveAttribute('data-kind', 'note');
  await page.locator('section.cell[data-kind="fio"]').getByRole('button', { name: 'Full width' }).click();
  await expect(page).toHaveURL(/cell=note:.*&cell=fio\.full$/);
  await page.reload();
  await expect(page.locator('section.cell').first()).toContainText('ext4: look at p99.9 & sys CPU');
  await expect(page.locator('section.cell[data-kind="fio"]')).toHaveClass(/cell-full/);
  await page.locator('section.cell[data-kind="note"]').getByRole('button', { name: 'Cell menu' }).click();
  await page.getByRole('menuitem', { name: 'Remove' }).click();
  await expect(page.locator('section.cell')).toHaveCount(1);
});

test('a link without cells opens with the starter cells; a notebook whose cells were all removed stays empty', async ({ page }) => {
  test.skip(!compareUrl, 'needs the comparison from the upload test');
  const cellsOf = () => page.locator('section.cell').evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')));
  // the library's Compare link without its cells and title: what a script or a hand-written link holds
  const bare = compareUrl.replace(/&cell=.*$/, '');
  expect(bare).toMatch(/^.*\/compare\?v=1&captures=[^&]+,[^&]+&baseline=[^&]+$/);
  await page.goto(bare);
  // the same cells as the library's Compare, in place of the link (no extra history entry)
  await expect(page).toHaveURL(/&baseline=[^&]+&cell=note:[^&]+&cell=fio(&cell=[^&]+)*$/);
  await expect(page.locator('section.cell[data-kind="note"]')).toContainText('against the baseline');
  const starter = new URL(compareUrl).searchParams.getAll('cell').map((c) => c.split(/[.:]/)[0]);
  expect(await cellsOf()).toEqual(starter);
  // remove them all: the link says so (cells=none), and a reload keeps the notebook empty
  for (let n = starter.length; n > 0; n--) {
    await page.locator('section.cell').first().getByRole('button', { name: 'Cell menu' }).click();
    await page.getByRole('menuitem', { name: 'Remove' }).click();
    await expect(page.locator('section.cell')).toHaveCount(n - 1);
  }
  await expect(page).toHaveURL(/&baseline=[^&]+&cells=none$/);
  await page.reload();
  await expect(page.getByRole('button', { name: '+ Add cell' })).toBeVisible();
  await expect(page.locator('section.cell')).toHaveCount(0);
  await expect(page).toHaveURL(/&cells=none$/);
});

test('bad links show a message, not a blank page', async ({ page }) => {
  await page.goto('/compare?v=1&captures=');
  await expect(page.getByRole('heading', { name: 'This link cannot be shown' })).toBeVisible();
  await expect(page.getByRole('alert')).toContainText('No captures to compare');

  await page.goto('/compare?v=7&captures=a,b');
  await expect(page.getByRole('alert')).toContainText('newer iolens');

  await page.goto('/compare?v=1&captures=0000000000000000,1111111111111111&cell=fio');
  await expect(page.locator('.error-box').first()).toContainText(/0000000000000000/);

  if (compareUrl) {
    await page.goto(compareUrl + '&cell=flamegraph&cell=fio:strip=maybe');
    await expect(page.getByTestId('url-problems')).toContainText("unknown cell kind 'flamegraph'");
    await expect(page.getByTestId('url-problems')).toContainText('strip must be 0 or 1');
    await expect(page.locator('.fio-table').first()).toBeVisible();
  }
});

test('keyboard: ? shows the shortcuts, / focuses the filter', async ({ page }) => {
  await page.goto('/');
  // The shortcuts are bound when the app has mounted: wait for it before typing.
  await expect(page.getByRole('searchbox', { name: 'Filter captures' })).toBeVisible();
  await page.keyboard.press('?');
  await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await page.keyboard.press('/');
  await expect(page.getByRole('searchbox', { name: 'Filter captures' })).toBeFocused();
});
