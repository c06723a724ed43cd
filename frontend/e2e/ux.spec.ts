// What a new user runs into first, end to end against the real server: typed text is never lost
// (Esc, reload), generated words follow the baseline, Copy link offers the short permalink, the
// title shows all of itself, the library keeps its ticks across Back, and every page fits a
// phone's width (390 px) without sideways scrolling of the page.
import { expect, test, type Page } from '@playwright/test';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

test.describe.configure({ mode: 'serial' });

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bundles = (process.env.IOLENS_E2E_BUNDLES ?? '').split(path.delimiter).filter(Boolean);

interface Cap {
  id: string;
  label: string;
  artifact_kinds: string[];
}
let caps: Cap[] = [];

async function upload(page: Page, file: string): Promise<Cap> {
  const r = await page.request.post('/api/captures', {
    multipart: { file: { name: path.basename(file), mimeType: 'application/gzip', buffer: fs.readFileSync(file) } },
    timeout: 300_000,
  });
  expect(r.ok(), `${file}: ${await r.text()}`).toBeTruthy();
  return (await r.json()) as Cap;
}

/** A starter notebook of the two bundles, opened from the library as a user does. */
async function starter(page: Page): Promise<void> {
  await page.goto('/');
  for (const c of caps) await page.getByRole('checkbox', { name: `Select ${c.label}`, exact: true }).check();
  await page.getByRole('button', { name: /^Compare 2/ }).click();
  await expect(page.locator('section.cell').first()).toHaveAttribute('data-kind', 'note');
  // (the comparison's facts arrive after the cells and move them down: wait for the page to settle)
  await expect(page.locator('section.cell[data-kind="fio"] .fio-table').first()).toBeVisible();
  await page.waitForLoadState('networkidle');
}

const note = (page: Page) => page.locator('section.cell[data-kind="note"]').first();

test('upload the two bundles', async ({ page }) => {
  expect(bundles.length, 'two bundles (see e2e/global-setup.ts)').toBeGreaterThanOrEqual(2);
  caps = [];
  for (const f of bundles.slice(0, 2)) caps.push(await upload(page, f));
});

test('Esc keeps the typed text, Save stores it; unfinished text and title survive a reload', async ({ page }) => {
  test.skip(caps.length < 2, 'needs the uploads');
  await starter(page);
  await note(page).getByRole('button', { name: 'edit' }).click();
  const box = note(page).getByRole('textbox', { name: 'Text (Markdown)' });
  await box.fill('Kept by **Esc**: the reader looks at p99.');
  await box.press('Escape');
  await expect(note(page).locator('.markdown')).toHaveText('Kept by Esc: the reader looks at p99.');

  // Typed and not finished: a reload brings the words back, and says so.
  await note(page).getByRole('button', { name: 'edit' }).click();
  await box.fill('Half a sentence that was never committed');
  await page.reload();
  await expect(note(page).getByRole('textbox', { name: 'Text (Markdown)' })).toHaveValue('Half a sentence that was never committed');
  await expect(note(page).getByTestId('note-restored')).toBeVisible();
  // The same for the title.
  const title = page.getByRole('textbox', { name: 'Notebook title' });
  await title.fill('A title still being typed');
  await page.reload();
  await expect(page.getByRole('textbox', { name: 'Notebook title' })).toHaveValue('A title still being typed');
  // (the restored text was put back into the notebook when it was restored)
  await expect(note(page).locator('.markdown')).toHaveText('Half a sentence that was never committed');
  await note(page).getByRole('button', { name: 'edit' }).click();
  await box.fill('Half a sentence, then finished');

  // Save with the editor still open (the button, not a key): the words are in the saved version.
  await page.getByRole('button', { name: /^Save/ }).click();
  await expect(page).toHaveURL(/\/n\/[0-9a-z]+$/);
  const id = new URL(page.url()).pathname.split('/').pop()!;
  const doc = (await (await page.request.get(`/api/notebooks/${id}`)).json()) as { document: { title: string; cells: { type: string; text?: string }[] } };
  expect(doc.document.cells.find((c) => c.type === 'markdown')?.text).toBe('Half a sentence, then finished');
  expect(doc.document.title).toBe('A title still being typed');
  // The saved notebook's tab is named by its title; its cells' titles are headings.
  await expect(page).toHaveTitle('A title still being typed · iolens');
  await expect(page.getByRole('heading', { name: 'Text', exact: true })).toBeVisible();
  // Nothing is left over as a draft: a reload shows the saved text, not an editor.
  await page.reload();
  await expect(note(page).locator('.markdown')).toHaveText('Half a sentence, then finished');
  await expect(note(page).getByTestId('note-restored')).toHaveCount(0);
});

test('generated title and intro follow the baseline; an edited intro says it no longer matches', async ({ page }) => {
  test.skip(caps.length < 2, 'needs the uploads');
  await starter(page);
  const [a, b] = [caps[0]!, caps[1]!];
  const base = (await page.locator('.captures-head .base-badge').locator('..').innerText()).includes(a.label) ? a : b;
  const other = base === a ? b : a;
  await expect(note(page)).toContainText(`against the baseline ${base.label}`);
  await expect(page.getByRole('textbox', { name: 'Notebook title' })).toHaveValue(`${other.label} vs ${base.label}`);

  // While the new baseline's comparison is on its way, the header shows the previous one, dimmed:
  // nothing below it moves (the note jumped up by the facts' height and back down, under the
  // pointer of a click aimed at its edit button).
  const editAt = await note(page).getByRole('button', { name: 'edit' }).boundingBox();
  let answer!: () => void;
  const held = new Promise<void>((r) => (answer = r));
  await page.route('**/api/compare/fio?*', async (route) => {
    await held;
    await route.continue();
  });
  await page.getByRole('radio', { name: `Use ${other.label} as baseline` }).check();
  await expect(note(page)).toContainText(`against the baseline ${other.label}`);
  await expect(page.locator('.nb-header [aria-busy="true"] .host-diff')).toBeVisible();
  expect(await note(page).getByRole('button', { name: 'edit' }).boundingBox()).toEqual(editAt);
  answer();
  await expect(page.locator('.nb-header [aria-busy="false"] .host-diff')).toBeVisible();
  await page.unrouteAll();
  await expect(note(page)).not.toContainText(`against the baseline ${base.label}`);
  await expect(page.getByRole('textbox', { name: 'Notebook title' })).toHaveValue(`${base.label} vs ${other.label}`);
  await expect(note(page).getByTestId('note-stale')).toHaveCount(0);

  // The user edits the intro: it is theirs now, and it is not rewritten; it says it no longer matches.
  await note(page).getByRole('button', { name: 'edit' }).click();
  const box = note(page).getByRole('textbox', { name: 'Text (Markdown)' });
  await box.fill(`${await box.inputValue()}\n\nMy finding: the other one is slower.`);
  await note(page).getByRole('button', { name: 'Done' }).click();
  await page.getByRole('radio', { name: `Use ${base.label} as baseline` }).check();
  await expect(note(page)).toContainText(`against the baseline ${other.label}`);
  await expect(note(page)).toContainText('My finding');
  await expect(note(page).getByTestId('note-stale')).toContainText(`the baseline is now ${base.label}`);
});

test('Copy link: one key saves and copies the short /n/ID, and says which link it copied', async ({ page }) => {
  test.skip(caps.length < 2, 'needs the uploads');
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await starter(page);
  const longUrl = page.url();
  await page.getByRole('button', { name: /^Copy link/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Copy a link to this notebook' });
  await expect(dialog).toContainText(`${longUrl.length} characters`);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/n\/[0-9a-z]+$/);
  const short = page.url();
  await expect(page.getByRole('status')).toHaveText(`Saved · copied the short link ${short}`);
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(short);
  expect(short.length).toBeLessThan(72);

  // Saved: `y` copies the permalink at once and names it. (The save moved to /n/ID, whose page opens
  // the notebook from the server first: until it shows the version, no page has a `y` to press.)
  await expect(page.getByTestId('save-status')).toContainText(`version ${short.split('/n/')[1]}`);
  await page.evaluate(() => navigator.clipboard.writeText(''));
  await page.keyboard.press('y');
  await expect(page.getByRole('status')).toHaveText(`Copied the short link ${short}`);
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(short);

  // Unsaved, the long link is still one click away, and the message says it is the long one.
  await page.goto(longUrl);
  await expect(page.getByTestId('save-status')).toHaveText('not saved');
  await page.keyboard.press('y');
  await page.getByRole('button', { name: 'Copy the long link' }).click();
  await expect(page.getByRole('status')).toHaveText(`Copied the long link (${longUrl.length} characters, not saved)`);
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(longUrl);
});

test('the notebook title shows every character, and shows that it can be edited', async ({ page }) => {
  test.skip(caps.length < 2, 'needs the uploads');
  await starter(page);
  const title = page.getByRole('textbox', { name: 'Notebook title' });
  for (const t of ['WWWWWWWWWWWW vs MMMMMMMMMMMM', 'ext4 vs xfs: 4k randwrite, O_DIRECT, iodepth 32', 'iiiiiiiiiiiiiiiiiiiiiiiiiiii']) {
    await title.fill(t);
    await title.press('Enter');
    await expect(title).toHaveValue(t);
    const fit = await title.evaluate((el: HTMLInputElement) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    expect(fit.scroll, `"${t}" fits its box`).toBeLessThanOrEqual(fit.client);
  }
  await expect(page.locator('.title-pencil')).toBeVisible();
  await expect(title).toHaveAttribute('title', /edit/);
});

test('Back from a comparison to the library keeps the ticked captures and the baseline', async ({ page }) => {
  test.skip(caps.length < 2, 'needs the uploads');
  await page.goto('/');
  const [a, b] = [caps[0]!, caps[1]!];
  await page.getByRole('checkbox', { name: `Select ${a.label}`, exact: true }).check();
  // The baseline radio of an unticked capture is not a faint disabled control: it ticks it too.
  await page.getByRole('radio', { name: `Baseline: ${b.label}`, exact: true }).check();
  await expect(page.getByRole('checkbox', { name: `Select ${b.label}`, exact: true })).toBeChecked();
  await page.getByRole('button', { name: /^Compare 2/ }).click();
  await expect(page).toHaveURL(/\/compare\?/);
  await page.goBack();
  await expect(page.getByRole('checkbox', { name: `Select ${a.label}`, exact: true })).toBeChecked();
  await expect(page.getByRole('checkbox', { name: `Select ${b.label}`, exact: true })).toBeChecked();
  await expect(page.getByRole('radio', { name: `Baseline: ${b.label}`, exact: true })).toBeChecked();
  await expect(page.getByRole('button', { name: /^Compare 2/ })).toBeEnabled();
});

test("the capture page shows each run's fio results and names its tab by the label", async ({ page }) => {
  test.skip(caps.length < 2, 'needs the uploads');
  const c = caps[0]!;
  const detail = (await (await page.request.get(`/api/captures/${c.id}`)).json()) as { runs_detail: { id: string }[] };
  await page.goto(`/captures/${c.id}`);
  await expect(page).toHaveTitle(`${c.label} · capture · iolens`);
  const t = page.getByTestId('fio-results').locator('table.fio-results').first();
  for (const h of ['IOPS', 'Bandwidth', 'clat p50', 'clat p99', 'clat p99.9']) await expect(t.locator('thead')).toContainText(h);
  await expect(t.locator('tbody tr')).toHaveCount(detail.runs_detail.length);
  await expect(t.locator('tbody tr').first().locator('td.num').first()).toHaveText(/IO\/s$/);
  await expect(t.locator('tfoot')).toContainText(`mean of ${detail.runs_detail.length}`);
});

test('the Notebooks list names cells as the notebook does', async ({ page }) => {
  test.skip(caps.length < 2, 'needs the uploads');
  await page.goto('/notebooks');
  const kinds = page.locator('.nb-kinds').first();
  await expect(kinds).toContainText('Text');
  await expect(kinds).toContainText('fio comparison');
  for (const name of (await kinds.innerText()).split(' · '))
    expect(['markdown', 'note', 'fio', 'fiolog', 'sweep', 'sweepline', 'lockstat', 'flame', 'sched', 'block'], name).not.toContain(name.trim());
});

/** Every page at 390 px: the page itself never scrolls sideways (wide tables scroll in their box). */
test('every page fits a 390 px phone', async ({ page }) => {
  test.setTimeout(600_000);
  test.skip(caps.length < 2, 'needs the uploads');
  // Captures with each probe's cells: the datasets that are small enough to upload here.
  const extra = ['block-loop', 'block-vda', 'stacks-ext4', 'stacks-xfs', 'lockstat-kernel-doc', 'sweep-fs-dio', 'sweep-bulkstat']
    .flatMap((d) => {
      const dir = path.join(repo, 'datasets', d);
      return fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.iolens.tar.gz')).map((f) => path.join(dir, f)) : [];
    });
  for (const f of extra) await upload(page, f);
  const all = (await (await page.request.get('/api/captures')).json()) as Cap[];
  const withKind = (k: string) => all.filter((c) => c.artifact_kinds.includes(k)).slice(0, 2);
  const pairs: [string, Cap[]][] = [
    ['block', withKind('perf-block')],
    ['flame', withKind('perf-script')],
    ['lockstat', withKind('lock-stat')],
    ['sched', withKind('perf-sched')],
    ['sweep&cell=sweepline&cell=fiolog&cell=sql', withKind('sweep-plan')],
  ];
  const id = (await (await page.request.get('/api/notebooks')).json()) as { notebooks: { id: string }[] };
  const urls = [
    '/',
    '/?q=nothing-matches-this',
    `/captures/${caps[0]!.id}`,
    '/notebooks',
    `/compare?v=1&captures=${caps[0]!.id},${caps[1]!.id}&baseline=${caps[0]!.id}&cell=note:${'A%20long%20line%20'.repeat(20)}&cell=fio&title=${'Long%20title%20'.repeat(12)}`,
    ...(id.notebooks[0] ? [`/n/${id.notebooks[0].id}`] : []),
    ...pairs.filter(([, cs]) => cs.length === 2).map(([cell, cs]) => `/compare?v=1&captures=${cs.map((c) => c.id).join(',')}&baseline=${cs[0]!.id}&cell=${cell}`),
    '/no/such/page',
    '/compare?v=99',
  ];
  await page.setViewportSize({ width: 390, height: 844 });
  const over: string[] = [];
  for (const u of urls) {
    await page.goto(u);
    await page.waitForLoadState('networkidle');
    await page.waitForTimeout(300);
    const w = await page.evaluate(() => document.documentElement.scrollWidth);
    if (w > 390) over.push(`${u.slice(0, 90)}: ${w} px`);
  }
  expect(over, 'pages wider than the 390 px window').toEqual([]);
  expect(urls.length).toBeGreaterThanOrEqual(9);
});

/** A laptop's 1024 px: the library's table fits without scrolling sideways (its workload column in
 *  view), and no host name breaks over two lines. */
test('the library fits 1024 px, one line per host', async ({ page }) => {
  test.skip(caps.length < 2, 'needs the uploads');
  // a kernel lab capture: its host, 'virtme-ng', broke at its hyphen
  const lab = path.join(repo, 'datasets', 'vmlab-deb61-vs-deb612', 'dio-sweep-deb61-ext4.iolens.tar.gz');
  if (fs.existsSync(lab)) await upload(page, lab);
  await page.setViewportSize({ width: 1024, height: 768 });
  await page.goto('/');
  const table = page.locator('table.library-table');
  await expect(table.locator('tbody tr').nth(1)).toBeVisible();
  const box = await page.locator('.library-table').evaluate((t) => ({ table: t.scrollWidth, box: t.parentElement!.clientWidth }));
  expect(box.table, 'the table is wider than its box').toBeLessThanOrEqual(box.box);
  await expect(table.locator('td.col-workload').first()).toBeInViewport();
  const lines = await table.locator('td.col-host').evaluateAll((tds) =>
    tds.map((td) => {
      const r = document.createRange();
      r.selectNodeContents(td);
      return { text: td.textContent, lines: new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size };
    }),
  );
  expect(lines.filter((l) => l.lines > 1)).toEqual([]);
});
