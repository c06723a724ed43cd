// Off-CPU and wakeup stacks, end to end (issue 17): upload datasets/offcpu-xfs-dio (fio O_DIRECT
// writes on an XFS loop device pinned to CPU 1, with --offcpu and --sched, captured on this
// machine); the starter notebook has the Off-CPU cell; the flame cell draws event offcpu as time
// off the CPU; the scheduler cell's ping-pong row of fio and the kworkers opens the pair view with
// both sides' blocked and woken-by flame charts. Runs against a real `iolens serve`
// (playwright.config.ts). IOLENS_SHOTS=dir also saves screenshots.
import { expect, test } from './filePage';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const shots = process.env.IOLENS_SHOTS;

test.describe.configure({ mode: 'serial' });

function bundle(): string | null {
  const dir = path.join(repo, 'datasets', 'offcpu-xfs-dio');
  const f = fs.existsSync(dir) ? fs.readdirSync(dir).filter((x) => x.endsWith('.iolens.tar.gz')).sort()[0] : undefined;
  return f ? path.join(dir, f) : null;
}

let cap = { id: '', label: '' };

test('upload; the off-CPU cell lists fio first with the run line', async ({ page }) => {
  const file = bundle();
  test.skip(file === null, 'needs datasets/offcpu-xfs-dio');
  test.setTimeout(240_000);
  await page.goto('/');
  await page.getByTestId('bundle-input').setInputFiles([file!]);
  await expect(page.getByTestId('upload-item').first()).toHaveClass(/upload-done/, { timeout: 180_000 });
  const list = (await (await page.request.get('/api/captures')).json()) as { id: string; label: string; artifact_kinds?: string[] }[];
  cap = list.find((c) => /offcpu-xfs-dio$/.test(c.label) && (c.artifact_kinds ?? []).includes('perf-offcpu'))!;
  expect(cap).toBeTruthy();

  await page.goto(`/compare?v=1&captures=${cap.id}&baseline=${cap.id}&cell=offcpu`);
  const cell = page.locator('section.cell[data-kind="offcpu"]');
  await expect(cell.getByTestId('offcpu-run')).toContainText('waits weighted');
  await expect(cell.getByTestId('offcpu-run')).toContainText(/still off the CPU at the end/);
  const first = cell.getByTestId('offcpu-threads').locator('tbody tr').first();
  await expect(first).toContainText('fio');
  await expect(first.locator('td.strong-num')).toHaveText(/s$/);
});

test("the threads table: fio's threads, the others folded behind one row whose figures add up to the run's; side A / side B fill the pair", async ({ page }) => {
  test.skip(!cap.id, 'needs the upload');
  await page.goto(`/compare?v=1&captures=${cap.id}&baseline=${cap.id}&cell=offcpu`);
  const cell = page.locator('section.cell[data-kind="offcpu"]');
  const table = cell.getByTestId('offcpu-threads');
  const others = table.getByTestId('offcpu-others');
  await expect(others).toContainText(/▸ \d+ other threads/);
  // folded: only fio's rows above it
  const rows = table.locator('tbody tr');
  const n = await rows.count();
  for (let i = 0; i < n - 1; i++) await expect(rows.nth(i).locator('td').first()).toContainText('fio');
  // fio's waits + the others' = the run's total (every thread, listed or not)
  const num = async (l: ReturnType<typeof table.locator>) => Number(((await l.textContent()) ?? '').replace(/,/g, ''));
  let fioWaits = 0;
  for (let i = 0; i < n - 1; i++) fioWaits += await num(rows.nth(i).locator('td').nth(2));
  const total = table.getByTestId('offcpu-total');
  expect(fioWaits + (await num(others.locator('td').nth(1)))).toBe(await num(total.locator('td').nth(1)));
  await expect(total).toContainText(/all \d+ threads of r000 \(the run's totals: fio's \d+ \+ \d+ other\)/);
  if (shots) await cell.screenshot({ path: path.join(shots, 'offcpu-00-threads.png') });
  await others.getByRole('button').click();
  await expect(others).toContainText('▾');
  await expect(rows).toHaveCount(n + Number((/(\d+) other/.exec((await others.textContent()) ?? '') ?? [])[1]));
  // a filter lists the matching threads of both groups
  await cell.getByLabel('Filter threads').fill('kworker');
  await expect(cell.getByTestId('offcpu-matched')).toContainText(/threads? listed match/);
  for (const t of await rows.locator('td:nth-child(2)').allTextContents()) expect(t).toBe('kworker/*');
  await cell.getByLabel('Filter threads').fill('');
  // the actions say what they do: side A and side B of the pair form
  const fio = rows.first();
  const tid = (/\[(\d+)\]/.exec((await fio.locator('td').first().textContent()) ?? '') ?? [])[1]!;
  await fio.getByRole('button', { name: 'side A' }).click();
  await expect(cell.getByLabel('side A', { exact: true })).toHaveValue(tid);
  await expect(fio.getByRole('button', { name: 'side A' })).toHaveAttribute('aria-pressed', 'true');
  await cell.getByLabel('side B', { exact: true }).fill('kworker/*');
  if (shots) await cell.screenshot({ path: path.join(shots, 'offcpu-00-threads-open.png') });
  await cell.getByRole('button', { name: 'show A and B side by side' }).click();
  await expect(cell.getByTestId('offcpu-side-a')).toContainText(/^A\s*fio/);
  await expect(cell.getByTestId('offcpu-side-b')).toContainText(/^B\s*kworker/);
});

test('an r= the capture does not have: the cell says so, naming r=, and shows its first run', async ({ page }) => {
  test.skip(!cap.id, 'needs the upload above');
  await page.goto(`/compare?v=1&captures=${cap.id}&baseline=${cap.id}&cell=offcpu:r=r009`);
  const cell = page.locator('section.cell[data-kind="offcpu"]');
  await expect(cell.getByTestId('offcpu-missing-run')).toHaveText(`r=r009: ${cap.label} has no off-CPU stacks in run r009 (runs with them: r000); showing r000.`);
  await expect(cell.getByTestId('offcpu-run')).toContainText('run r000');
  if (shots) await cell.screenshot({ path: path.join(shots, 'offcpu-missing-run.png') });
  await page.goto(`/compare?v=1&captures=${cap.id}&baseline=${cap.id}&cell=offcpu:r=r000`);
  await expect(cell.getByTestId('offcpu-run')).toContainText('run r000');
  await expect(cell.getByTestId('offcpu-missing-run')).toHaveCount(0);
});

test('the flame cell draws event offcpu as time off the CPU', async ({ page }) => {
  test.skip(!cap.id, 'needs the upload');
  await page.goto(`/compare?v=1&captures=${cap.id}&baseline=${cap.id}&cell=flame:ev=offcpu;comm=fio`);
  const cell = page.locator('section.cell[data-kind="flame"]');
  await expect(cell.getByTestId('flame-summary')).toContainText('off the CPU', { timeout: 60_000 });
  await expect(cell.getByTestId('flame-summary')).toContainText('offcpu');
  await expect(cell.getByTestId('flame-canvas')).toBeVisible();
  if (shots) await cell.screenshot({ path: path.join(shots, 'offcpu-01-flame.png') });
});

test("one capture's off-CPU flame graph shows the workload's tasks by default, says so, and every task in one click", async ({ page }) => {
  test.skip(!cap.id, 'needs the upload');
  await page.goto(`/compare?v=1&captures=${cap.id}&baseline=${cap.id}&cell=flame`);
  const cell = page.locator('section.cell[data-kind="flame"]');
  const summary = cell.getByTestId('flame-summary');
  await expect(summary).toContainText('off the CPU', { timeout: 60_000 });
  await expect(cell.getByTestId('flame-default-tasks')).toContainText("tasks: fio, the workload's own (the default for off-CPU stacks");
  await expect(cell.getByRole('combobox', { name: 'Task' })).toHaveValue('comm:fio');
  const waits = async () => Number(((await summary.locator('strong').first().textContent()) ?? '').replace(/,/g, ''));
  const fio = await waits();
  if (shots) await cell.screenshot({ path: path.join(shots, 'offcpu-00-flame-default-tasks.png') });
  await cell.getByTestId('flame-default-tasks').getByRole('button', { name: 'every task' }).click();
  await expect(page).toHaveURL(/cell=flame:comm=\*$/);
  await expect(cell.getByTestId('flame-default-tasks')).toHaveCount(0);
  await expect(cell.getByRole('combobox', { name: 'Task' })).toHaveValue('all');
  await expect.poll(waits).toBeGreaterThan(fio);
  if (shots) await cell.screenshot({ path: path.join(shots, 'offcpu-00-flame-every-task.png') });
});

test('a ping-pong row opens both sides of the pair', async ({ page }) => {
  test.skip(!cap.id, 'needs the upload');
  await page.goto(`/compare?v=1&captures=${cap.id}&baseline=${cap.id}&cell=sched:v=pingpong;cpus=workload;by=group`);
  const sched = page.locator('section.cell[data-kind="sched"]');
  const row = sched.locator('tbody tr', { has: page.locator('td.pair', { hasText: /fio.*kworker|kworker.*fio/ }) }).first();
  await row.getByTestId('pp-stacks').click();
  await expect(page).toHaveURL(/cell=offcpu:c=[^&]*;r=r000;a=[^&]+;b=/);
  const cell = page.locator('section.cell[data-kind="offcpu"]');
  const pair = cell.getByTestId('offcpu-pair');
  await expect(pair).toBeVisible({ timeout: 60_000 });
  const sides = [cell.getByTestId('offcpu-side-a'), cell.getByTestId('offcpu-side-b')];
  for (const s of sides) {
    await expect(s.locator('canvas')).toHaveCount(2);
    await expect(s).toContainText('where it blocked');
    await expect(s).toContainText('what woke it');
  }
  // fio's waits ended by the kworkers, and the kworkers' by fio: both directions of the storm
  await expect(pair).toContainText(/ended by a wakeup from/);
  if (shots) await cell.screenshot({ path: path.join(shots, 'offcpu-02-pair.png') });
  await cell.getByRole('button', { name: '⇄ swap' }).click();
  await expect(page).toHaveURL(/cell=offcpu:.*;a=kworker/);
});
