// The timeline's shared selection in the exports (issue 17): a permalink with `sel=` on a shipped
// capture with scheduler, block and stack traces (datasets/vmlab-lockstat-6.12), the flame, block
// and scheduler cells following it in the app; then the notebook exported from the app's Export menu
// (the text report, then the HTML file opened from disk): each of those cells says the same range
// and shows the numbers the app's cells show (the flame graph's samples, the scheduler's switch
// rate under the range, which differs from the whole run's). IOLENS_SHOTS=dir saves screenshots.
import { expect, test, type Page } from '@playwright/test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const shots = process.env.IOLENS_SHOTS;
const tmp = fs.mkdtempSync(path.join(process.env.IOLENS_E2E_TMP ?? os.tmpdir(), 'selection-export-'));
const cell = (page: Page, kind: string) => page.locator(`section.cell[data-kind="${kind}"]`);
const num = (s: string | null) => Number((/[\d.,]+/.exec(s ?? '') ?? ['NaN'])[0].replace(/,/g, ''));

test('a permalink with sel= exports, as text and HTML, what its flame, block and scheduler cells show', async ({ page, browser, request }) => {
  test.setTimeout(300_000);
  const dir = path.join(repo, 'datasets', 'vmlab-lockstat-6.12');
  const f = fs.readdirSync(dir).find((n) => n.startsWith('lockstat-plain') && n.endsWith('.iolens.tar.gz'))!;
  const up = await request.post('/api/captures', { multipart: { file: { name: f, mimeType: 'application/gzip', buffer: fs.readFileSync(path.join(dir, f)) } }, timeout: 180_000 });
  expect(up.status(), await up.text()).toBeLessThan(300);
  const id = ((await up.json()) as { id: string }).id;

  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto(`/compare?v=1&captures=${id}&baseline=${id}&cell=timeline:run=r000;sel=1000000000-2000000000&cell=flame&cell=block:c=qd,iops&cell=sched`);
  for (const kind of ['flame', 'block', 'sched']) await expect(cell(page, kind).getByTestId('time-applied')).toContainText('1.000–2.000 s of run r000');
  // the scheduler's tables count the range and say so
  await expect(cell(page, 'sched').getByTestId('time-applied')).toContainText("the tables count");
  await expect(cell(page, 'sched').getByTestId('sched-span-note')).toContainText('the timeline selection');
  const rateRow = cell(page, 'sched').locator('tr[data-metric="switches_workload"]');
  await expect(rateRow).toBeVisible();
  const shownRate = num(await rateRow.locator('td').first().textContent());
  await expect(cell(page, 'flame').getByTestId('flame-summary')).toContainText('run r000');
  const shownSamples = num(await cell(page, 'flame').getByTestId('flame-summary').locator('strong').first().textContent());
  expect(shownSamples).toBeGreaterThan(0);
  if (shots) {
    await cell(page, 'sched').scrollIntoViewIfNeeded();
    await cell(page, 'sched').screenshot({ path: path.join(shots, 'selection-sched-cell.png') });
  }
  // the same cell without the selection counts the whole runs: another rate
  const whole = await request.get(`/api/compare/sched?captures=${id}&baseline=${id}`);
  const wholeRate = ((await whole.json()) as { metrics: { metric: string; cells: Record<string, { mean: number }> }[] }).metrics.find((m) => m.metric === 'switches_workload')!.cells[id]!.mean;
  expect(Math.abs(wholeRate - shownRate) / wholeRate).toBeGreaterThan(0.05);

  // Save (the permalink of this version), then the text report from the app's Export menu
  await page.getByRole('button', { name: /^Save/ }).click();
  await expect(page).toHaveURL(/\/n\/[a-z0-9]+/);
  await expect(cell(page, 'sched').getByTestId('sched-span-note')).toBeVisible();
  await page.getByRole('button', { name: 'Export ▾' }).first().click();
  await page.getByRole('menuitem', { name: /Text report/ }).click();
  await expect(page.getByTestId('export-text')).toBeVisible({ timeout: 120_000 }); // the export renders every cell on the server
  const text = await page.getByTestId('export-text').innerText();
  const nid = text.split('\n')[1]!.split('/n/')[1]!;
  const flat = text.replace(/\s+/g, ' ');
  expect(flat).toContain('Time range 1.000-2.000 s of run r000 (timeline selection): set in cell [1]');
  const parts = text.split(/^-- \[\d\] /m);
  const part = (title: string) => parts.find((p) => p.startsWith(title))!.replace(/\s+/g, ' ');
  for (const title of ['Flame graph', 'Block layer', 'Scheduler']) expect(part(title)).toContain('Time range 1.000-2.000 s of run r000 (timeline selection)');
  expect(part('Flame graph')).toContain(`run r000; ${shownSamples.toLocaleString('en-US')} samples`);
  const textRate = num(/Context switches\/s, workload CPUs \(lower is better\) A \* ([\d.,]+k?\/s)/.exec(part('Scheduler'))![1]!) * (/k\/s/.test(/workload CPUs \(lower is better\) A \* ([\d.,]+k?\/s)/.exec(part('Scheduler'))![1]!) ? 1000 : 1);
  expect(Math.abs(textRate - shownRate) / shownRate).toBeLessThan(0.01);
  await page.keyboard.press('Escape');

  // HTML file, opened from disk
  const r = await request.get(`/api/notebooks/${nid}/export?format=html`, { timeout: 240_000 });
  expect(r.ok()).toBeTruthy();
  const file = path.join(tmp, 'selection.html');
  fs.writeFileSync(file, await r.text());
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const html = await context.newPage();
  await html.goto(`file://${file}`);
  const notices = html.locator('p.time-applied');
  await expect(notices).toHaveCount(4);
  for (const kind of ['flame', 'block', 'sched']) await expect(html.locator(`section.cell[data-kind="${kind}"] p.time-applied`)).toContainText('1.000-2.000 s of run r000 (timeline selection)');
  await expect(html.locator('section.cell[data-kind="flame"] svg.flame title').first()).toContainText(`${shownSamples.toLocaleString('en-US')} samples`);
  const htmlRate = await html.locator('section.cell[data-kind="sched"] table.fio tr', { hasText: 'Context switches/s, workload CPUs' }).first().locator('td.num').first().textContent();
  const htmlValue = num(htmlRate) * (/k\/s/.test(htmlRate ?? '') ? 1000 : 1);
  expect(Math.abs(htmlValue - shownRate) / shownRate).toBeLessThan(0.01);
  if (shots) await html.screenshot({ path: path.join(shots, 'selection-html-export.png'), fullPage: true });
  await context.close();
});
