// Loose files on the library page: recognised by the server from their content, placed in runs,
// refused with their name when iolens does not read them, and uploaded as one capture whose
// stacks open in the flame graph. Real files: backend/tests/formats/samples.
import { expect, test } from '@playwright/test';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const samples = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'backend', 'tests', 'formats', 'samples');
const files = ['fio-3.33-dio-4k-r0.json', 'fio-3.33-dio-4k-r1.json', 'perf-6.1-fio-dio-4k-r0.txt.gz', 'perf-6.1-fio-dio-4k-r1.txt.gz', 'iostat/iostat-x.txt'].map((f) => ({ name: path.basename(f), mimeType: 'application/octet-stream', buffer: fs.readFileSync(path.join(samples, f)) }));

test('loose files become one capture: recognised, placed, refused by name, uploaded', async ({ page }) => {
  await page.goto('/');
  await page.getByTestId('loose-input').setInputFiles([...files, { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('what we saw on the list\n') }]);
  const panel = page.getByTestId('loose-panel');
  const rows = panel.getByTestId('loose-file');
  await expect(rows).toHaveCount(6);
  await expect(rows.nth(0)).toContainText('fio JSON');
  await expect(rows.nth(1)).toContainText('r001');
  await expect(rows.nth(2)).toContainText('perf script with call stacks');
  await expect(rows.nth(3)).toContainText('r001');
  await expect(rows.nth(4)).toContainText('iostat -x');
  await expect(rows.nth(5)).toContainText('not read by iolens');
  await expect(panel).toContainText('no host facts were captured');
  const upload = panel.getByRole('button', { name: 'Upload as one capture' });
  await expect(upload).toBeDisabled();
  await panel.getByRole('button', { name: 'Remove notes.txt' }).click();
  await expect(rows).toHaveCount(5);
  await panel.getByLabel('Capture name').fill('e2e loose dio-4k');
  await panel.getByLabel('Tags').fill('src=thread');
  await expect(upload).toBeEnabled();
  await upload.click();
  const done = panel.getByTestId('loose-done');
  await expect(done).toContainText('New capture');
  await expect(done).toContainText('(2 runs)');
  const row = page.locator('.library-table tbody tr', { hasText: 'e2e loose dio-4k' });
  await expect(row).toContainText('src');
  await done.getByRole('link', { name: 'e2e loose dio-4k' }).click();
  await expect(page).toHaveURL(/\/captures\//);
  await expect(page.locator('body')).toContainText('perf-script');
});
