// The shipped capture of the XFS unwritten-extent ramp (datasets/xfs-unwritten-ramp-stacks, 3 runs
// of 20 s with stacks), walked as issue 17 asks: in the subsecond heatmap of every task, drag the
// ramp (seconds 2-4) as range A and shift+drag the steady state (seconds 9-18) as range B, then take
// the ranges over every run; the flame cell shows their difference over the 3 runs, each side the heatmap's cells of its range, coloured
// (3 repeats a side: not greyed), and the conversion of unwritten extents among the largest changes
// of total share, shrinking. IOLENS_SHOTS=dir saves a screenshot.
import { expect, test } from '@playwright/test';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { huedPixels } from './flameCanvas';
import { drag } from './heatmap';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'datasets', 'xfs-unwritten-ramp-stacks');
const bundle = path.join(dir, fs.readdirSync(dir).find((f) => f.endsWith('.iolens.tar.gz'))!);
const shots = process.env.IOLENS_SHOTS;

test('ramp vs steady state of the shipped XFS ramp: two ranges over 3 runs, coloured, the conversion shrinking', async ({ page, request }) => {
  const r = await request.post('/api/captures', { multipart: { file: { name: path.basename(bundle), mimeType: 'application/gzip', buffer: fs.readFileSync(bundle) } } });
  expect(r.ok(), await r.text()).toBeTruthy();
  const id = ((await r.json()) as { id: string }).id;
  // each side's samples: the heatmap's cells of its seconds, summed over the runs
  let ramp = 0;
  let steady = 0;
  for (const run of ['r000', 'r001', 'r002']) {
    const h = (await (await request.get(`/api/captures/${id}/flame/heatmap?run=${run}&rows=50`)).json()) as { counts: number[] };
    ramp += h.counts.slice(2 * 50, 5 * 50).reduce((x, y) => x + y, 0);
    steady += h.counts.slice(9 * 50, 19 * 50).reduce((x, y) => x + y, 0);
  }
  await page.goto(`/compare?v=1&captures=${id}&baseline=${id}&cell=flame:comm=*;hm=50`);
  await expect(page.getByTestId('heatmap-canvas')).toBeVisible();
  await drag(page, [2, 0], [4, 49]);
  await expect(page).toHaveURL(/t=2000000000-5000000000/);
  await drag(page, [9, 0], [18, 49], true);
  await expect(page).toHaveURL(/tb=9000000000-19000000000/);
  // ranges dragged on one run's heatmap are of that run: too few repeats, grey; one click takes
  // the same ranges over every run
  await expect(page.getByTestId('flame-diff-legend')).toHaveAttribute('data-few', 'true');
  await page.getByTestId('range-every-run').click();
  const summary = page.getByTestId('flame-diff-summary');
  await expect(summary).toContainText(`B 9.000–19.000 s (${steady.toLocaleString('en-US')} samples, 3 runs)`);
  await expect(summary).toContainText(`A 2.000–5.000 s (${ramp.toLocaleString('en-US')} samples, 3 runs)`);
  await expect(page.getByTestId('flame-diff-legend')).not.toHaveAttribute('data-few', 'true');
  const table = page.getByTestId('flame-diff-table');
  await page.getByRole('button', { name: 'Total', exact: true }).click();
  const row = table.locator('tr', { hasText: 'xfs_iomap_write_unwritten' });
  await expect(row).toHaveCount(1);
  await expect(row.locator('td.shrank')).not.toHaveCount(0);
  expect(await huedPixels(page)).toBeGreaterThan(0);
  if (shots) await page.locator('section.cell[data-kind="flame"]').screenshot({ path: path.join(shots, 'ramp-vs-steady.png') });
});
