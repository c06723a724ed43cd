// The Traced events cell (--trace), end to end on a shipped dataset: upload datasets/xfs-ail-trace
// (an fs_mark-style job on XFS with logbsize=32k and 256k, 3 repeats each, every xfs_ail_insert
// recorded with its fields, captured on this machine; RECIPE.md); a link without cells starts with
// the cell; its summary says each capture's events against perf stat's count; counting by new_lsn
// shows each LSN as cycle/block, the top values and the rest, with first and last times; the state
// is kept in the link; the rate over time is drawn per capture. Runs against a real `iolens serve`
// (playwright.config.ts). IOLENS_SHOTS=dir also saves screenshots.
import { type Page } from '@playwright/test';
import { expect, test } from './filePage';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const shots = process.env.IOLENS_SHOTS;
const DIR = path.join(repo, 'datasets', 'xfs-ail-trace');
const EVENT = 'xfs:xfs_ail_insert';

test.describe.configure({ mode: 'serial' });

const caps: { id: string; label: string }[] = [];

async function shot(page: Page, name: string) {
  if (shots) await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
}

test('upload the 32k and 256k captures; a link without cells opens with the Traced events cell', async ({ page }) => {
  const files = fs.existsSync(DIR) ? fs.readdirSync(DIR).filter((f) => f.endsWith('.iolens.tar.gz')).sort() : [];
  test.skip(files.length < 2, 'needs datasets/xfs-ail-trace');
  test.setTimeout(180_000);
  for (const f of files) {
    const r = await page.request.post('/api/captures', { multipart: { file: { name: f, mimeType: 'application/gzip', buffer: fs.readFileSync(path.join(DIR, f)) } } });
    expect(r.ok(), await r.text()).toBeTruthy();
  }
  const list = (await (await page.request.get('/api/captures')).json()) as { id: string; label: string; artifact_kinds?: string[] }[];
  for (const lb of ['32k', '256k']) {
    const c = list.find((x) => x.label.endsWith(`-xfs-fsmark-logbsize-${lb}`));
    expect(c, `the ${lb} capture`).toBeTruthy();
    expect(c!.artifact_kinds).toContain('perf-trace-fields');
    caps.push(c!);
  }
  // the starter cells of two traced captures include the events cell (and the monitors they also hold)
  await page.goto(`/compare?v=1&captures=${caps[0]!.id},${caps[1]!.id}&baseline=${caps[0]!.id}`);
  await expect(page).toHaveURL(/&cell=events(&|$)/);
  await expect(page.locator('section.cell[data-kind="events"] .cell-kind')).toHaveText('Traced events');
});

test("the summary: each capture's events, per run, per second, and perf stat's count of the same runs", async ({ page }) => {
  test.skip(caps.length < 2, 'needs the upload');
  await page.goto(`/compare?v=1&captures=${caps[0]!.id},${caps[1]!.id}&baseline=${caps[0]!.id}&cell=events`);
  const cell = page.locator('section.cell[data-kind="events"]');
  await expect(cell.getByLabel('Event', { exact: true })).toHaveValue(EVENT);
  const rows = cell.locator('table.events-summary tbody tr');
  await expect(rows).toHaveCount(2);
  const cells = async (i: number) => (await rows.nth(i).locator('td').allInnerTexts()).map((t) => t.trim());
  // the dataset's figures (RECIPE.md): 4,966 and 4,965 insertions over 3 runs, every one counted by perf stat
  // exact totals beside perf stat's count; the mean per run and the rate in the app's number rule (events/state.ts)
  expect(await cells(0)).toEqual([caps[0]!.label, '3', '4,966', '1.655k', expect.stringMatching(/^\d{3}\/s$/), '4,966', 'trace_xfs__xfs_ail_insert']);
  expect(await cells(1)).toEqual([caps[1]!.label, '3', '4,965', '1.655k', expect.stringMatching(/^\d{3}\/s$/), '4,965', 'trace_xfs__xfs_ail_insert']);
  await expect(rows.nth(0).locator('td').nth(3)).toHaveAttribute('title', /^1655\.3\d* events per run$/);
  await expect(cell.locator('.notice')).toHaveCount(0); // nothing lost
  // the count by the event alone: one row, per run as in the summary
  const values = cell.getByRole('table', { name: `${EVENT} per event` });
  await expect(values.locator('tbody tr')).toHaveCount(1);
  await expect(values.locator('tbody tr td').nth(1)).toHaveText('1.655k');
  // the rate over time, a line per capture
  const chart = cell.getByRole('img', { name: `${EVENT} events per second` });
  await expect(chart).toBeVisible();
  await expect(chart.locator('path[fill="none"]')).toHaveCount(2);
  await expect(cell.locator('.band-chart figcaption')).toContainText(caps[1]!.label);
  await shot(page, 'events-01-summary');
});

test('count by new_lsn: LSNs as cycle/block, the top values and the rest, kept in the link', async ({ page }) => {
  test.skip(caps.length < 2, 'needs the upload');
  await page.goto(`/compare?v=1&captures=${caps[0]!.id},${caps[1]!.id}&baseline=${caps[0]!.id}&cell=events`);
  const cell = page.locator('section.cell[data-kind="events"]');
  await expect(cell.locator('table.events-summary tbody tr')).toHaveCount(2);
  const fields = await cell.getByLabel('Count by field').locator('option').allInnerTexts();
  expect(fields).toEqual(['(the event alone)', 'dev', 'lip', 'type', 'flags', 'old_lsn', 'new_lsn', 'cpu', 'pid', 'comm']);
  await cell.getByLabel('Count by field').selectOption('new_lsn');
  await expect(page).toHaveURL(/&cell=events:f=new_lsn$/);
  await cell.getByLabel('Values shown').selectOption('5');
  await expect(page).toHaveURL(/&cell=events:f=new_lsn;top=5$/);
  const table = cell.getByRole('table', { name: `${EVENT} per new_lsn` });
  await expect(table.locator('thead th').first()).toHaveText('new_lsn');
  // the top 5 LSNs of each capture (different ones: the two captures' logs are at other cycles), then the rest
  const rows = table.locator('tbody tr');
  await expect(rows).toHaveCount(11);
  // 4294967298 = cycle 1, block 2: the 32k capture's most inserted LSN, 26 insertions over 3 runs
  const top = rows.first();
  await expect(top.locator('td').first()).toHaveText('1/2');
  await expect(top.locator('td').first().locator('span')).toHaveAttribute('title', '4294967298');
  await expect(top.locator('td').nth(1)).toHaveText('8.667'); // the app's count-like form (4 significant digits)
  await expect(top.locator('td').nth(1)).toHaveAttribute('title', '26 events over 3 run(s): 8.66667 per run');
  await expect(top.locator('td').nth(2)).toHaveText(/^\d+\.\d{3} s$/); // first, since its run's start
  await expect(top.locator('td').nth(4)).toHaveText('–'); // not among the 256k capture's top values
  for (let i = 0; i < 10; i++) await expect(rows.nth(i).locator('td').first()).toHaveText(/^\d+\/\d+$/);
  const rest = rows.last();
  await expect(rest.locator('td').first()).toHaveText('the rest (summed)');
  await expect(rest.locator('td').nth(1)).toHaveText('1.635k');
  await expect(rest.locator('td').nth(4)).toHaveText('1.635k');
  // the link holds the state: a reload shows the same
  await page.reload();
  await expect(cell.getByLabel('Count by field')).toHaveValue('new_lsn');
  await expect(cell.getByLabel('Values shown')).toHaveValue('5');
  await expect(cell.getByRole('table', { name: `${EVENT} per new_lsn` }).locator('tbody tr')).toHaveCount(11);
  await shot(page, 'events-02-by-lsn');
});

test("the monitors: each capture's mean with its runs in the head, the change against the baseline in a column of its own", async ({ page }) => {
  test.skip(caps.length < 2, 'needs the upload');
  await page.goto(`/compare?v=1&captures=${caps[0]!.id},${caps[1]!.id}&baseline=${caps[0]!.id}&cell=monitors`);
  const table = page.locator('section.cell[data-kind="monitors"] table.monitors-table');
  await expect(table.locator('tbody tr').first()).toBeVisible();
  const head = (await table.locator('thead th').allInnerTexts()).map((t) => t.trim());
  expect(head).toEqual(['Key', 'Unit', `${caps[0]!.label} (baseline, 3 runs)`, `${caps[1]!.label} (3 runs)`, 'vs base']);
  // the values alone in their cells (so that they line up on the right), the ratio beside them
  const rows = table.locator('tbody tr');
  const n = await rows.count();
  expect(n).toBeGreaterThan(5);
  for (let i = 0; i < n; i++) {
    const cells = (await rows.nth(i).locator('td').allInnerTexts()).map((t) => t.trim());
    expect(cells).toHaveLength(5);
    // the app's number forms (logic/format.ts formatMonitor): sizes with binary prefixes, '%' and '/s' scaled, the rest count-like
    for (const v of [cells[2]!, cells[3]!]) expect(v, `row ${i}: ${cells.join(' | ')}`).toMatch(/^(–|-?[\d,]+(\.\d+)?[kMGT]?(\/s| %)?|-?[\d,]+(\.\d+)? (B|KiB|MiB|GiB|TiB)(\/s)?)$/);
    if (cells[1] === 'bytes') for (const v of [cells[2]!, cells[3]!]) expect(v, `row ${i}`).toMatch(/^(–|[\d,.]+ (B|KiB|MiB|GiB|TiB))$/);
    if (cells[1] === '/s') for (const v of [cells[2]!, cells[3]!]) expect(v, `row ${i}`).toMatch(/^(–|[\d,.]+[kMGT]?\/s)$/);
    expect(cells[4], `row ${i}`).toMatch(/^(|[+±-]\d+\.\d %|×[\d.,]+)$/);
  }
  await shot(page, 'events-04-monitors');
  // ext4's *_kbytes counters per second (unit KiB/s) as a byte rate, not a plain count ('10.54 MiB/s', was '10.8k')
  await page.goto(`/compare?v=1&captures=${caps[0]!.id},${caps[1]!.id}&baseline=${caps[0]!.id}&cell=monitors:src=ext4`);
  const kib = table.locator('tbody tr', { has: page.locator('td', { hasText: /^KiB\/s$/ }) });
  await expect(kib.first()).toBeVisible();
  for (const v of (await kib.first().locator('td.num:not(.muted)').allInnerTexts()).map((t) => t.trim())) expect(v).toMatch(/^\d+(\.\d+)? (B|KiB|MiB|GiB)\/s$/);
});

test('a capture without traced events, monitors, fio logs, off-CPU stacks or a sweep: each cell says so the same way, with the flag and the captures that have them', async ({ page }) => {
  test.skip(caps.length < 2, 'needs the upload');
  const list = (await (await page.request.get('/api/captures')).json()) as { id: string; label: string; artifact_kinds?: string[] }[];
  const plain = list.find((c) => !(c.artifact_kinds ?? []).some((k) => ['perf-trace', 'monitor', 'fio-log', 'perf-offcpu', 'sweep-plan'].includes(k)))!;
  expect(plain, 'a capture with none of them (the bundles iolens.spec.ts uploads)').toBeTruthy();
  await page.goto(`/compare?v=1&captures=${plain.id}&baseline=${plain.id}&cell=events&cell=monitors&cell=fiolog&cell=offcpu&cell=sweepline`);
  await expect(page.getByText(`1 capture · baseline ${plain.label}`)).toBeVisible(); // not '1 captures'
  for (const [kind, noun, flag] of [
    ['events', 'traced events', '--trace'],
    ['monitors', 'monitors', '--monitors'],
    ['fiolog', 'fio logs over time', '--fio-logs'],
    ['offcpu', 'off-CPU stacks', '--offcpu'],
    ['sweepline', 'swept parameters', 'sweep'],
  ] as const) {
    const empty = page.locator(`section.cell[data-kind="${kind}"] .empty-note`);
    await expect(empty.getByRole('heading'), kind).toHaveText(`No ${noun} in ${plain.label}`);
    await expect(empty.locator('.empty-next code').first(), kind).toContainText(`iolens-collect ${flag === 'sweep' ? '' : 'run '}${flag}`);
  }
  // the library's captures with traced events (this spec's two) are links that add one to the notebook
  const add = page.locator('section.cell[data-kind="events"]').getByTestId('empty-add');
  await add.getByRole('link', { name: caps[0]!.label }).click();
  await expect(page).toHaveURL(new RegExp(`captures=${plain.id}(,|%2C)${caps[0]!.id}&`));
  await expect(page.locator('section.cell[data-kind="events"] table.events-summary tbody tr')).toHaveCount(1);
  await shot(page, 'events-05-empty');
});
