// Lock contention, end to end: upload bundles that carry /proc/lock_stat dumps, open a notebook with
// the lockstat cell, read the comparison, the call sites of a class, one capture's top classes, and
// the note of a capture made here without lock_stat (this kernel has no CONFIG_LOCK_STAT).
// Runs against a real `iolens serve` (see playwright.config.ts), after iolens.spec.ts (same
// database: this file does not assume an empty library). IOLENS_SHOTS=dir also saves screenshots.
import { type Page } from '@playwright/test';
import { expect, test } from './filePage';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { xfsStacksBundle } from './stackBundles';
import { A, B, C, captureList, comparison } from '../src/testdata/fixtures';
import { lockComparison, lockPoints, lockStacks, lockTop } from '../src/testdata/lockStat';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const shots = process.env.IOLENS_SHOTS;
const tmp = process.env.IOLENS_E2E_TMP ?? fs.mkdtempSync('/tmp/iolens-e2e-');

test.describe.configure({ mode: 'serial' });

function bundlesIn(folder: string): string[] {
  const dir = path.join(repo, 'datasets', folder);
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.iolens.tar.gz')).sort().map((f) => path.join(dir, f)) : [];
}

function collect(label: string, out: string, extra: string[]): void {
  // The collector is stdlib-only: run it from the checkout, as on a bare test host.
  execFileSync(
    'python3',
    ['-m', 'iolens_collect', 'run', '--label', label, '--repeat', '2', ...extra,
      '--fio-args', `--name=e2e --filename=${out.replace(/\.iolens\.tar\.gz$/, '.dat')} --size=4m --bs=4k --rw=randwrite --ioengine=psync --runtime=1 --time_based`,
      '-o', out],
    { cwd: repo, stdio: 'pipe', env: { ...process.env, PYTHONPATH: path.join(repo, 'collectors') } },
  );
}

/** The reconstructed &zone->lock pair of datasets/, or, without it, the same made here (needs fio). */
function zoneLockBundles(): string[] {
  if (process.env.IOLENS_E2E_LOCKSTAT_BUNDLES) return process.env.IOLENS_E2E_LOCKSTAT_BUNDLES.split(path.delimiter);
  const shipped = bundlesIn('lockstat-zone-lock-reconstructed');
  if (shipped.length >= 2) return shipped.slice(0, 2);
  execFileSync('python3', [path.join(repo, 'datasets', 'reconstruct-lockstat.py'), tmp], { stdio: 'pipe' });
  return ['revert', 'vanilla'].map((k) => {
    const out = path.join(tmp, `zone-${k}.iolens.tar.gz`);
    if (!fs.existsSync(out)) collect(`reconstructed lock_stat: &zone->lock, 5.11-rc5 ${k}`, out, ['--lock-stat-snapshot', path.join(tmp, `5.11-rc5-${k}.lock_stat.txt`)]);
    return out;
  });
}

async function upload(page: Page, file: string): Promise<{ id: string; label: string }> {
  const r = await page.request.post('/api/captures', { multipart: { file: { name: path.basename(file), mimeType: 'application/gzip', buffer: fs.readFileSync(file) } } });
  expect(r.ok(), await r.text()).toBeTruthy();
  return (await r.json()) as { id: string; label: string };
}

const shot = async (page: Page, name: string) => {
  if (shots) await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
};

let vanilla = '';
let revert = '';

test('upload two bundles with lock_stat and compare their lock contention', async ({ page }) => {
  const files = zoneLockBundles();
  await page.goto('/');
  await page.getByTestId('bundle-input').setInputFiles(files);
  const items = page.getByTestId('upload-item');
  await expect(items).toHaveCount(2);
  for (let i = 0; i < 2; i++) await expect(items.nth(i)).toHaveClass(/upload-done/);

  const list = (await (await page.request.get('/api/captures')).json()) as { id: string; label: string; artifact_kinds?: string[] }[];
  vanilla = list.find((c) => /zone->lock, 5\.11-rc5 vanilla/.test(c.label))!.id;
  revert = list.find((c) => /zone->lock, 5\.11-rc5 revert/.test(c.label))!.id;
  expect(vanilla && revert).toBeTruthy();

  await page.goto(`/compare?v=1&captures=${revert},${vanilla}&baseline=${revert}&cell=lockstat`);
  const cell = page.locator('section.cell[data-kind="lockstat"]');
  await expect(cell.locator('.cell-kind')).toHaveText('Lock contention');
  const table = cell.getByTestId('lockstat-compare');
  await expect(table).toBeVisible();
  // the baseline first, labelled so; the other with its difference
  await expect(table.locator('.cap-head').first()).toContainText('revert');
  await expect(table.locator('.cap-head').first()).toContainText('baseline');
  await expect(table.locator('th.ratio-head')).toHaveText(/^Δ wait\/I\/O \((ns|µs|ms|s)\)$/);
  // one unit per wait column, in its head; the numbers under it have one number of decimals, right-aligned
  await expect(table.locator('tr.sub-head th').nth(3)).toHaveText(/^wait\/I\/O \((ns|µs|ms|s)\)$/);
  // wait/I/O of both captures (the 4th of each capture's numbers): one column format over both
  const waits = await table.locator('tr.class-row').evaluateAll((trs) => trs.flatMap((tr) => [3, 7].map((k) => tr.querySelectorAll('td')[k]?.textContent ?? '')));
  const shown = waits.filter((w) => /\d/.test(w) && w !== '0');
  expect(shown.length).toBeGreaterThan(1);
  expect(new Set(shown.map((w) => (w.includes('.') ? w.length - w.indexOf('.') - 1 : 0))).size).toBe(1);
  expect(shown.every((w) => /^[\d,.]+$/.test(w))).toBe(true);
  expect(await table.locator('tr.class-row td').nth(3).evaluate((td) => getComputedStyle(td).textAlign)).toBe('right');
  const row = table.locator('tr[data-class="&zone->lock"]');
  await expect(row).toHaveCount(1);
  await expect(row.locator('td').first()).toHaveText('739,037'); // the published contentions of the revert
  await expect(row.locator('td.delta')).toHaveText(/^[+-]\d/);
  await expect(row.locator('td.ratio')).toHaveText(/^[+-]\d+\.\d %$|^×\d/);
  // every number says its capture, runs and unit on hover
  const title = await row.locator('td').nth(3).getAttribute('title');
  expect(title).toContain('revert');
  expect(title).toContain('wait/I/O [ns per I/O]');
  expect(title).toMatch(/I\/Os \(fio total_ios of all runs\)/);
  expect(title).toContain('lock_stat/zone-lock-5.11-rc5-revert.lock_stat.txt');
  await expect(cell.locator('.legend')).toContainText('by the largest change in wait per I/O');
  await shot(page, 'lockstat-01-compare');

  // the call sites of the class, both captures side by side
  await row.getByRole('button', { name: '&zone->lock' }).click();
  const points = cell.getByTestId('lockstat-points');
  await expect(points).toBeVisible();
  await expect(points.locator('.points-col')).toHaveCount(2);
  await expect(points.locator('.points-col').first()).toContainText('Waited at');
  await expect(points.locator('.points-col').first()).toContainText('get_page_from_freelist+0xaf0/0x1370');
  await expect(points.locator('.points-col').first()).toContainText('626,426');
  await shot(page, 'lockstat-02-points');
  // a click anywhere on the row folds and unfolds it too, as the name's button does
  await row.locator('td').nth(1).click();
  await expect(points).toHaveCount(0);
  await row.locator('td').nth(2).click();
  await expect(cell.getByTestId('lockstat-points')).toBeVisible();

  // one capture's top classes, kept in the link
  await cell.getByRole('button', { name: 'Top classes' }).click();
  await expect(page).toHaveURL(/cell=lockstat:v=top$/);
  await cell.getByRole('button', { name: /5\.11-rc5 vanilla/ }).click();
  await expect(page).toHaveURL(new RegExp(`cell=lockstat:v=top;cap=${vanilla}$`));
  const top = cell.getByTestId('lockstat-top');
  await expect(top.locator('tr[data-class="&zone->lock"] td').nth(1)).toHaveText('1,203,433');
  await cell.getByLabel('Order by').selectOption('contentions');
  await expect(page).toHaveURL(/cell=lockstat:v=top;by=contentions;cap=/);
  await page.reload();
  await expect(cell.getByTestId('lockstat-top')).toBeVisible();
  await shot(page, 'lockstat-03-top');
});

test('classes that appear and vanish are marked', async ({ page }) => {
  const doc = bundlesIn('lockstat-kernel-doc');
  test.skip(doc.length < 2, 'needs datasets/lockstat-kernel-doc');
  const [a, b] = [await upload(page, doc[0]!), await upload(page, doc[1]!)];
  await page.goto(`/compare?v=1&captures=${a.id},${b.id}&baseline=${a.id}&cell=lockstat.full`);
  const table = page.getByTestId('lockstat-compare');
  await expect(table.locator('tr[data-class="&rq->lock/1"] .mark-new')).toHaveText('new');
  await expect(table.locator('tr[data-class="unix_table_lock"] .mark-gone')).toHaveText('gone');
  await expect(table.locator('tr[data-class="&mm->mmap_sem"][data-rw="R"] .rw-badge')).toHaveText('read');
  await expect(table.locator('tr[data-class="&mm->mmap_sem"][data-rw="W"] td.ratio')).toHaveText('gone');
  await page.locator('.lock-warnings summary').click();
  await expect(page.locator('.lock-warnings')).toContainText("no 'lock_stat version' line");
  await shot(page, 'lockstat-04-appear-vanish');
});

test('a capture made here without lock_stat says why and points to perf lock contention', async ({ page }) => {
  test.skip(!vanilla, 'needs the captures of the first test');
  const out = path.join(tmp, 'no-lock-stat.iolens.tar.gz');
  if (!fs.existsSync(out)) collect('6.18 here, --lock-stat', out, ['--lock-stat']);
  const here = await upload(page, out);
  const detail = (await (await page.request.get(`/api/captures/${here.id}`)).json()) as { notes: string[] };
  const note = detail.notes.find((n) => n.startsWith('lock_stat:'))!;
  expect(note).toContain('does not exist');

  await page.goto(`/compare?v=1&captures=${revert},${vanilla},${here.id}&baseline=${revert}&cell=lockstat`);
  const empty = page.getByTestId('lockstat-empty');
  await expect(empty).toContainText('6.18 here, --lock-stat');
  await expect(empty).toContainText('/proc/lock_stat does not exist');
  await expect(empty).toContainText('CONFIG_LOCK_STAT');
  await expect(empty.locator('code', { hasText: 'perf lock contention' }).first()).toBeVisible();
  await expect(page.getByTestId('lockstat-compare')).toBeVisible(); // the others are still compared
  await shot(page, 'lockstat-05-one-without');

  await page.goto(`/compare?v=1&captures=${here.id}&cell=lockstat`);
  await expect(page.getByTestId('lockstat-empty')).toContainText('No lock_stat in 6.18 here, --lock-stat');
  await expect(page.getByTestId('lockstat-empty')).toContainText('--lock-stat-snapshot FILE');
  await shot(page, 'lockstat-06-none');
});

const stacksBundle = () => xfsStacksBundle(tmp);

test("a class's call sites in another capture's perf stacks, and the flame graph they open", async ({ page }) => {
  test.skip(!vanilla, 'needs the captures of the first test');
  const perf = await upload(page, stacksBundle());
  await page.goto(`/compare?v=1&captures=${revert},${vanilla},${perf.id}&baseline=${revert}&cell=lockstat`);
  const cell = page.locator('section.cell[data-kind="lockstat"]');
  await cell.getByTestId('lockstat-compare').locator('tr[data-class="&zone->lock"]').getByRole('button', { name: '&zone->lock' }).click();
  const section = cell.getByTestId('lockstat-stacks');
  await expect(section).toBeVisible();
  await expect(section.locator('.lock-stacks-head')).toContainText('cpu-clock samples of one capture');
  // get_page_from_freelist: a contention point of &zone->lock, sampled in the perf capture
  const row = section.locator(`tr[data-symbol="get_page_from_freelist"][data-capture="${perf.id}"]`);
  await expect(row).toHaveCount(1);
  await expect(row.locator('td.sym')).toHaveText('get_page_from_freelist');
  await expect(row.locator('td.from')).toHaveText(/^waited [\d,]+ · held [\d,]+ · \+1 capture$/);
  const nums = row.locator('td.num');
  await expect(nums.nth(0)).toHaveText(/^[1-9][\d,]*$/); // samples
  await expect(nums.nth(1)).toHaveText(/^\d[\d.]* (ms|µs|s)$/); // CPU time
  await expect(nums.nth(2)).toHaveText(/^\d+\.\d+ %$/); // share of the capture
  await expect(nums.nth(3)).toHaveText(/^\d+(\.\d+)? %$/); // in a lock slow path
  // where each number comes from
  const title = (await nums.nth(0).getAttribute('title'))!;
  expect(title).toContain(perf.label);
  expect(title).toMatch(/runs r000, r001(, r002, r003)? \(summed\), event cpu-clock/); // datasets/stacks-xfs has four
  // the numbers are the API's
  const api = (await (await page.request.get(`/api/captures/${revert}/lock-stat/stacks?class=${encodeURIComponent('&zone->lock')}&with=${vanilla},${perf.id}`)).json()) as {
    symbols: { name: string; stacks: { capture: string; samples: number; share_pct: number }[] }[];
  };
  const want = api.symbols.find((x) => x.name === 'get_page_from_freelist')!.stacks.find((x) => x.capture === perf.id)!;
  await expect(nums.nth(0)).toHaveText(want.samples.toLocaleString('en-US'));
  const share = (await nums.nth(2).textContent())!.trim();
  // call sites that were never sampled say so
  await expect(section.locator('tr.absent').first()).toContainText("not in any capture's stacks");
  // the heaviest stacks, the call site's frame marked
  await row.getByRole('button', { name: /stacks/ }).click();
  await expect(section.locator('.top-stacks tr').first()).toBeVisible();
  await expect(section.locator('.top-stacks .hit').first()).toHaveText('get_page_from_freelist');
  await shot(page, 'lockstat-09-in-perf-stacks');

  // the flame graph of that capture, the call site searched: a new cell right after this one
  await row.getByRole('button', { name: /flame graph/ }).click();
  await expect(page).toHaveURL(new RegExp(`cell=lockstat&cell=flame:cap=${perf.id};q=`));
  const flame = page.locator('section.cell[data-kind="flame"]');
  await expect(flame).toHaveCount(1);
  await expect(flame.locator('input[type="search"]')).toHaveValue('^get_page_from_freelist$');
  // the flame graph's matched share is the section's
  await expect(flame.getByTestId('flame-search-status')).toContainText(`${share.replace(' %', '%')} of samples matched`);
  // the lock cell kept its open class; a second click finds the same cell instead of adding one
  await expect(section).toBeVisible();
  await row.getByRole('button', { name: /flame graph/ }).click();
  await expect(page.locator('section.cell[data-kind="flame"]')).toHaveCount(1);
});

test('without perf stacks, the section says what to record', async ({ page }) => {
  test.skip(!vanilla, 'needs the captures of the first test');
  await page.goto(`/compare?v=1&captures=${revert},${vanilla}&baseline=${revert}&cell=lockstat`);
  const cell = page.locator('section.cell[data-kind="lockstat"]');
  await cell.getByTestId('lockstat-compare').locator('tr[data-class="&zone->lock"]').getByRole('button', { name: '&zone->lock' }).click();
  const empty = cell.getByTestId('lockstat-stacks-empty');
  await expect(empty).toContainText('None of these captures has perf call stacks');
  await expect(empty.locator('code')).toContainText('iolens-collect run --stacks');
});

test('screenshots of a richer comparison (hand-written answers; IOLENS_SHOTS only)', async ({ page }) => {
  test.skip(!shots, 'set IOLENS_SHOTS=/path/to/dir to take screenshots');
  await page.route('**/api/captures', (r) => (r.request().method() === 'GET' ? r.fulfill({ json: captureList }) : r.fallback()));
  await page.route('**/api/compare/fio?*', (r) => r.fulfill({ json: comparison }));
  await page.route('**/api/compare/lock-stat?*', (r) => r.fulfill({ json: lockComparison }));
  await page.route('**/api/captures/*/lock-stat?*', (r) => r.fulfill({ json: lockTop }));
  await page.route('**/lock-stat/points?*', (r) => r.fulfill({ json: { ...lockPoints, capture: new URL(r.request().url()).pathname.split('/')[3] } }));
  await page.route('**/lock-stat/stacks?*', (r) => r.fulfill({ json: lockStacks }));
  await page.goto(`/compare?v=1&captures=${A},${B},${C}&baseline=${A}&cell=lockstat`);
  const table = page.getByTestId('lockstat-compare');
  await expect(table).toBeVisible();
  await table.getByRole('button', { name: '&head->lock' }).click();
  await expect(page.getByTestId('lockstat-points')).toBeVisible();
  await table.locator('tr[data-class="&head->lock"] td.delta').hover();
  await shot(page, 'lockstat-07-mocked-compare');
  await page.goto(`/compare?v=1&captures=${A},${B},${C}&baseline=${A}&cell=lockstat:v=top`);
  await expect(page.getByTestId('lockstat-top')).toBeVisible();
  await shot(page, 'lockstat-08-mocked-top');
});
