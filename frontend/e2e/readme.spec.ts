// The README's pictures, made from the real datasets through the real server, so that they change
// when the page does. Part of every e2e run (the pictures go to test-results/ and the steps must
// work); `make readme-shots` writes them into docs/ (IOLENS_README_SHOTS=dir).
import type { Page } from '@playwright/test';
import { expect, test } from './filePage';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

test.describe.configure({ mode: 'serial' });

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const datasets = path.join(repo, 'datasets');

function bundle(dir: string): string | null {
  const d = path.join(datasets, dir);
  if (!fs.existsSync(d)) return null;
  const f = fs.readdirSync(d).find((n) => n.endsWith('.iolens.tar.gz'));
  return f ? path.join(d, f) : null;
}

async function upload(page: Page, file: string): Promise<{ id: string; label: string }> {
  const r = await page.request.post('/api/captures', {
    multipart: { file: { name: path.basename(file), mimeType: 'application/gzip', buffer: fs.readFileSync(file) } },
  });
  expect(r.ok(), `${file}: ${await r.text()}`).toBeTruthy();
  return (await r.json()) as { id: string; label: string };
}

async function shoot(page: Page, name: string): Promise<void> {
  const out = process.env.IOLENS_README_SHOTS ? path.resolve(process.env.IOLENS_README_SHOTS, name) : test.info().outputPath(name);
  await page.mouse.move(0, 0);
  await page.screenshot({ path: out, fullPage: true });
  expect(fs.statSync(out).size).toBeGreaterThan(20_000);
}

/** A starter notebook as a user makes it: tick in the library, pick the baseline, Compare. */
async function compare(page: Page, base: { label: string }, other: { label: string }, title: string): Promise<void> {
  await page.goto('/');
  await page.getByRole('checkbox', { name: `Select ${other.label}`, exact: true }).check();
  await page.getByRole('radio', { name: `Baseline: ${base.label}`, exact: true }).check();
  await page.getByRole('button', { name: /^Compare 2/ }).click();
  const t = page.getByRole('textbox', { name: 'Notebook title' });
  await t.fill(title);
  await t.press('Enter');
}

test('docs/screenshot-compare.png: ext4 against XFS, the starter notebook', async ({ page }) => {
  const [e, x] = [bundle('fs-ext4'), bundle('fs-xfs')];
  test.skip(!e || !x, 'needs datasets/fs-ext4 and datasets/fs-xfs');
  const ext4 = await upload(page, e!);
  const xfs = await upload(page, x!);
  await page.setViewportSize({ width: 1440, height: 900 });
  await compare(page, ext4, xfs, 'ext4 vs XFS: 4k random writes, O_DIRECT, iodepth 32');
  await expect(page.locator('.fio-table').first()).toBeVisible();
  await page.getByRole('button', { name: /Differing host facts/ }).click();
  await shoot(page, 'screenshot-compare.png');
});

test('docs/screenshot-sweep.png: the sweep matrix and chart', async ({ page }) => {
  const dir = path.join(datasets, 'sweep-fs-dio');
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.endsWith('.iolens.tar.gz')).sort() : [];
  test.skip(files.length < 2, 'needs the two bundles of datasets/sweep-fs-dio');
  const caps = [];
  for (const f of files) caps.push(await upload(page, path.join(dir, f)));
  const ext4 = caps.find((c) => /ext4/.test(c.label)) ?? caps[0]!;
  const xfs = caps.find((c) => c !== ext4)!;
  await page.setViewportSize({ width: 1440, height: 900 });
  await compare(page, ext4, xfs, 'ext4 vs XFS: O_DIRECT random I/O sweep');
  await expect(page.locator('section.cell[data-kind="sweep"]')).toBeVisible();
  await page.getByRole('button', { name: /Differing host facts/ }).click();
  // The README shows the two sweep cells: the others (intro, fio table, logs) are removed.
  for (const kind of ['note', 'fio', 'fiolog']) {
    const cell = page.locator(`section.cell[data-kind="${kind}"]`);
    while ((await cell.count()) > 0) {
      await cell.first().getByRole('button', { name: 'Cell menu' }).click();
      await page.getByRole('menuitem', { name: 'Remove' }).click();
    }
  }
  await expect(page.locator('section.cell[data-kind="sweepline"] svg').first()).toBeVisible();
  await shoot(page, 'screenshot-sweep.png');
});
