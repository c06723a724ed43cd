// Screenshots of every page and state, for looking at the UI (not a pass/fail check):
//   IOLENS_SHOTS=/tmp/iolens-shots npx playwright test shots
// Most shots use hand-written API answers (src/testdata/fixtures.ts) through page.route, so
// they show a realistic three-capture comparison whatever the database holds.
import { expect, test, type Page } from '@playwright/test';
import path from 'node:path';
import { A, B, C, captureDetail, captureList, comparison } from '../src/testdata/fixtures';

const dir = process.env.IOLENS_SHOTS;
test.skip(!dir, 'set IOLENS_SHOTS=/path/to/dir to take screenshots');

const shot = (page: Page, name: string, fullPage = true) => page.screenshot({ path: path.join(dir!, `${name}.png`), fullPage });

async function mockApi(page: Page, opts: { empty?: boolean } = {}) {
  await page.route('**/api/health', (r) => r.fulfill({ json: { status: 'ok', version: '0.1.0', captures: opts.empty ? 0 : captureList.length } }));
  await page.route('**/api/captures', (r) => (r.request().method() === 'GET' ? r.fulfill({ json: opts.empty ? [] : captureList }) : r.fallback()));
  await page.route(`**/api/captures/${A}`, (r) => r.fulfill({ json: captureDetail }));
  await page.route('**/api/compare/fio?*', (r) => {
    const u = new URL(r.request().url());
    const ids = (u.searchParams.get('captures') ?? '').split(',');
    const baseline = u.searchParams.get('baseline') ?? ids[0]!;
    const cmp = structuredClone(comparison);
    cmp.captures = ids.map((id) => cmp.captures.find((c) => c.id === id)!).filter(Boolean);
    cmp.baseline = baseline;
    cmp.host_diff = cmp.host_diff.filter((d) => new Set(ids.map((id) => d.values[id] ?? null)).size > 1);
    for (const g of cmp.groups)
      for (const m of g.metrics) {
        for (const id of Object.keys(m.cells)) if (!ids.includes(id)) delete m.cells[id];
        const b = m.cells[baseline]?.mean ?? null;
        for (const [id, c] of Object.entries(m.cells)) c.ratio = id === baseline || b === null || c.mean === null ? null : c.mean / b;
      }
    return r.fulfill({ json: cmp });
  });
}

test('empty library', async ({ page }) => {
  await mockApi(page, { empty: true });
  await page.goto('/');
  await expect(page.getByTestId('empty-state')).toBeVisible();
  await shot(page, '01-library-empty');
});

test('library with captures, two selected', async ({ page }) => {
  await mockApi(page);
  await page.goto('/');
  await page.getByRole('checkbox', { name: 'Select 6.18-xfs', exact: true }).check();
  await page.getByRole('checkbox', { name: 'Select 6.18-ext4', exact: true }).check();
  await shot(page, '02-library');
  await page.getByRole('searchbox', { name: 'Filter captures' }).fill('xfs');
  await shot(page, '03-library-filtered');
});

test('uploads: sending, ingesting, done, already present, error', async ({ page }) => {
  await mockApi(page);
  let n = 0;
  await page.route('**/api/captures', async (r) => {
    if (r.request().method() !== 'POST') return r.fallback();
    const i = n++;
    if (i === 0) return r.fulfill({ status: 201, json: { id: A, label: '6.18-xfs', created: true, runs: 3, warnings: [] } });
    if (i === 1) return r.fulfill({ status: 200, json: { id: B, label: '6.18-ext4', created: false, runs: 3, warnings: [] } });
    if (i === 2)
      return r.fulfill({ status: 400, json: { error: 'manifest.json: runs[0].artifacts[1].sha256 does not match the file', detail: { file: 'manifest.json', field: 'runs[0].artifacts[1].sha256', member: 'runs/r000/fio.json' } } });
    await new Promise((res) => setTimeout(res, 60_000)); // stays "ingesting…"
    return r.fulfill({ status: 201, json: { id: C, label: 'x', created: true, runs: 1, warnings: [] } });
  });
  await page.goto('/');
  const file = (name: string, size: number) => ({ name, mimeType: 'application/gzip', buffer: Buffer.alloc(size, 1) });
  await page.getByTestId('bundle-input').setInputFiles([file('6.18-xfs.iolens.tar.gz', 48213), file('6.18-ext4.iolens.tar.gz', 51200), file('broken.iolens.tar.gz', 20480), file('6.1-xfs-emulated.iolens.tar.gz', 3_400_000)]);
  await expect(page.getByTestId('upload-item').nth(2)).toHaveClass(/upload-failed/);
  await expect(page.getByTestId('upload-item').nth(3)).toContainText(/ingesting|%/);
  await shot(page, '04-uploads');
});

test('upload progress against the real server, throttled', async ({ page }) => {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 20, downloadThroughput: -1, uploadThroughput: 400 * 1024 });
  await page.goto('/');
  await page.getByTestId('bundle-input').setInputFiles([{ name: 'big-capture.iolens.tar.gz', mimeType: 'application/gzip', buffer: Buffer.alloc(3_000_000, 7) }]);
  await expect(page.getByTestId('upload-item')).toContainText(/%\)/);
  await page.waitForTimeout(1500);
  await shot(page, '05-upload-progress', false);
  await expect(page.getByTestId('upload-item')).toHaveClass(/upload-failed/, { timeout: 30_000 });
  await shot(page, '06-upload-error-real', false);
});

test('capture detail', async ({ page }) => {
  await mockApi(page);
  await page.goto(`/captures/${A}`);
  await expect(page.getByRole('heading', { name: '6.18-xfs' })).toBeVisible();
  await shot(page, '07-capture');
});

test('compare notebook', async ({ page }) => {
  await mockApi(page);
  await page.goto(`/compare?v=1&captures=${A},${B},${C}&baseline=${A}&cell=fio&cell=note:ext4%20is%2011%20%25%20slower%20at%204k%20randwrite;%20p99%20within%20noise.`);
  await expect(page.locator('.fio-table')).toBeVisible();
  await shot(page, '08-compare');
  await page.locator('.fio-commands summary').click();
  await page.locator('.fio-table tbody tr[data-metric="clat_p99_ns"] td.ratio').first().hover();
  await shot(page, '09-compare-commands');
  await page.goto(`/compare?v=1&captures=${A},${B}&baseline=${B}&cell=fio.full:m=iops,bw_bytes,clat_p99_ns;strip=1`);
  await expect(page.locator('.fio-table')).toBeVisible();
  await shot(page, '10-compare-two-baseline-ext4');
});

test('compare with URL problems', async ({ page }) => {
  await mockApi(page);
  await page.goto(`/compare?v=1&captures=${A},${B}&baseline=zzz&cell=fio&cell=flamegraph:x&cell=fio:strip=maybe`);
  await expect(page.getByTestId('url-problems')).toBeVisible();
  await shot(page, '11-compare-url-problems', false);
});

test('bad url and not found', async ({ page }) => {
  await mockApi(page);
  await page.goto('/compare?v=3&captures=a,b');
  await shot(page, '12-bad-url', false);
  await page.goto('/nothing/here');
  await shot(page, '13-not-found', false);
});

test('shortcuts dialog', async ({ page }) => {
  await mockApi(page);
  await page.goto('/');
  await page.keyboard.press('?');
  await shot(page, '14-shortcuts', false);
});

test('real data: two bundles through the real server', async ({ page }) => {
  const fs = await import('node:fs');
  const files = (process.env.IOLENS_E2E_BUNDLES ?? '').split(path.delimiter).filter(Boolean).slice(0, 2);
  test.skip(files.length < 2, 'needs two bundles');
  const ids: string[] = [];
  for (const f of files) {
    const r = await page.request.post('/api/captures', { multipart: { file: { name: path.basename(f), mimeType: 'application/gzip', buffer: fs.readFileSync(f) } } });
    expect(r.ok()).toBeTruthy();
    ids.push(((await r.json()) as { id: string }).id);
  }
  await page.goto('/');
  await expect(page.locator('.library-table')).toBeVisible();
  await shot(page, '15-real-library');
  await page.goto(`/compare?v=1&captures=${ids.join(',')}&baseline=${ids[0]}&cell=fio`);
  await expect(page.locator('.fio-table')).toBeVisible();
  await shot(page, '16-real-compare');
  await page.goto(`/captures/${ids[1]}`);
  await expect(page.locator('.facts-grid')).toBeVisible();
  await shot(page, '17-real-capture');
});

// Notebooks, against the real server: starter notebook, SQL cell with chart and tables panel,
// a refused query, saved version, draft of a saved version, export dialog, the HTML file from
// disk, the notebook list (empty and full), the token dialog.
test('notebook pages and states', async ({ page, browser }) => {
  const fs = await import('node:fs');
  const files = (process.env.IOLENS_E2E_BUNDLES ?? '').split(path.delimiter).filter(Boolean).slice(0, 2);
  test.skip(files.length < 2, 'needs two bundles');
  await page.goto('/notebooks');
  await expect(page.getByTestId('notebooks-empty')).toBeVisible();
  await shot(page, '20-notebooks-empty', false);
  const caps: { id: string; label: string }[] = [];
  for (const f of files) {
    const r = await page.request.post('/api/captures', { multipart: { file: { name: path.basename(f), mimeType: 'application/gzip', buffer: fs.readFileSync(f) } } });
    caps.push((await r.json()) as { id: string; label: string });
  }
  await page.goto('/');
  for (const c of caps) await page.getByRole('checkbox', { name: `Select ${c.label}`, exact: true }).check();
  await page.getByRole('button', { name: /^Compare 2/ }).click();
  await expect(page.locator('.fio-table').first()).toBeVisible();
  await shot(page, '21-notebook-starter');
  await page.getByRole('button', { name: '+ Add cell' }).click();
  await shot(page, '22-notebook-add-cell', false);
  await page.getByRole('menuitem', { name: /^SQL/ }).click();
  const sql = page.locator('section.cell[data-kind="sql"]');
  await expect(sql.locator('.sql-result')).toBeVisible();
  await sql.getByLabel('Chart').selectOption('bar');
  await sql.getByRole('button', { name: 'Tables' }).click();
  await expect(sql.locator('.tables-panel')).toContainText('fio_results');
  await sql.screenshot({ path: path.join(dir!, '23-sql-cell-chart-tables.png') });
  await page.keyboard.press('Control+s');
  await expect(page).toHaveURL(/\/n\//);
  await expect(page.locator('.fio-table').first()).toBeVisible();
  await shot(page, '24-notebook-saved');
  const permalink = page.url();
  await page.getByRole('button', { name: 'Export ▾' }).click();
  await shot(page, '25-export-menu', false);
  await page.getByRole('menuitem', { name: /Text report/ }).click();
  await expect(page.getByTestId('export-text')).toBeVisible();
  await shot(page, '26-export-text', false);
  await page.keyboard.press('Escape');
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export ▾' }).click();
  await page.getByRole('menuitem', { name: /HTML file/ }).click();
  const file = path.join(dir!, 'notebook-export.html');
  await (await download).saveAs(file);
  const disk = await (await browser.newContext({ offline: true })).newPage();
  await disk.goto('file://' + file);
  await disk.screenshot({ path: path.join(dir!, '27-export-html-from-disk.png'), fullPage: true });
  await page.locator('section.cell[data-kind="fio"]').getByRole('button', { name: 'Full width' }).click();
  await expect(page.getByTestId('save-status')).toContainText('unsaved changes');
  await sql.getByRole('textbox', { name: 'SQL query' }).fill("SELECT * FROM read_csv('/etc/passwd')");
  await sql.getByRole('button', { name: /^Run/ }).click();
  await expect(sql.locator('.error-box')).toBeVisible();
  await shot(page, '28-notebook-draft-sql-refused', false);
  await sql.screenshot({ path: path.join(dir!, '29-sql-refused.png') });
  await page.goto('/notebooks');
  await expect(page.locator('.notebook-table')).toBeVisible();
  await shot(page, '30-notebooks', false);
  await page.goto('/');
  await shot(page, '31-library-with-notebooks', false);
  await page.route('**/api/health', (r) => r.fulfill({ json: { status: 'ok', version: '0.1.0', captures: 2, writes_need_token: true } }));
  await page.goto(permalink);
  await page.getByRole('button', { name: 'Enter token' }).click();
  await shot(page, '32-token-dialog', false);
});
