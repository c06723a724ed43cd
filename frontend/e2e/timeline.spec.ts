// The timeline cell, end to end, on real captures (datasets/stacks-xfs, block-loop, sched-pinned):
// brush a range and the flame, block and scheduler cells show it applied (the flame graph's totals
// become that range's), tracks without data say so, a reload of the permalink keeps the selection,
// clearing it gives the cells back their own range. IOLENS_SHOTS=dir saves a screenshot of each state.
import { type Page } from '@playwright/test';
import { expect, test } from './filePage';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const shots = process.env.IOLENS_SHOTS;

test.describe.configure({ mode: 'serial' });

const ids: Record<string, string> = {};
const shot = async (page: Page, name: string) => {
  if (shots) await page.locator('main').screenshot({ path: path.join(shots, `${name}.png`) });
};
const cell = (page: Page, kind: string) => page.locator(`section.cell[data-kind="${kind}"]`);

/** Drag across the timeline from fraction a to fraction b of its plot. */
async function brush(page: Page, a: number, b: number) {
  const c = page.getByTestId('timeline-canvas');
  await c.scrollIntoViewIfNeeded();
  await expect(c).toHaveAttribute('data-loading', '0');
  const box = (await c.boundingBox())!;
  const d = await c.evaluate((el) => ({ ...(el as HTMLElement).dataset }));
  const x = (f: number) => box.x + Number(d.left) + f * Number(d.width);
  const y = box.y + 30;
  await page.mouse.move(x(a), y);
  await page.mouse.down();
  await page.mouse.move(x((a + b) / 2), y, { steps: 4 });
  await page.mouse.move(x(b), y, { steps: 4 });
  await page.mouse.up();
}

const samplesShown = async (page: Page) => Number(((await page.getByTestId('flame-summary').locator('strong').first().textContent()) ?? '').replace(/,/g, ''));

test.beforeAll(async ({ request }) => {
  for (const name of ['stacks-xfs', 'block-loop', 'sched-pinned']) {
    const dir = path.join(repo, 'datasets', name);
    const f = fs.readdirSync(dir).find((x) => x.endsWith('.iolens.tar.gz'))!;
    const r = await request.post('/api/captures', { multipart: { file: { name: f, mimeType: 'application/gzip', buffer: fs.readFileSync(path.join(dir, f)) } } });
    expect(r.status(), await r.text()).toBeLessThan(300);
    ids[name] = ((await r.json()) as { id: string }).id;
  }
});

test('brush the timeline: the flame graph shows that range of the run; a reload keeps it; clear gives the whole graph back', async ({ page, request }) => {
  const id = ids['stacks-xfs']!;
  await page.goto(`/compare?v=1&captures=${id}&baseline=${id}&cell=timeline&cell=flame`);
  await expect(cell(page, 'flame').getByTestId('flame-canvas')).toBeVisible();
  const whole = await samplesShown(page);
  // this capture has samples only: the other tracks say why they are empty
  await expect(page.getByTestId('timeline-missing')).toContainText('no scheduler trace in this run');
  await expect(page.getByTestId('timeline-missing')).toContainText('no block trace in this run');
  await shot(page, 'timeline-stacks');

  await brush(page, 0.2, 0.6);
  await expect(page).toHaveURL(new RegExp(`cell=timeline:cap=${id};run=r000;sel=\\d+-\\d+`));
  const sel = /sel=(\d+)-(\d+)/.exec(page.url())!;
  const [from, to] = [Number(sel[1]), Number(sel[2])];
  await expect(cell(page, 'flame').getByTestId('time-applied')).toContainText(`${(from / 1e9).toFixed(3)}–${(to / 1e9).toFixed(3)} s of run r000`);
  // the flame graph of that range: the run's time 0 is its clock reading, the flame graph's its first sample
  const ov = (await (await request.get(`/api/captures/${id}/timeline`)).json()) as { runs: { id: string; samples_offset_ns: number }[] };
  const off = ov.runs.find((r) => r.id === 'r000')!.samples_offset_ns;
  const f = (await (await request.get(`/api/captures/${id}/flame?runs=r000&from_ns=${Math.max(0, from - off)}&to_ns=${to - off}`)).json()) as { total_samples: number };
  await expect.poll(() => samplesShown(page)).toBe(f.total_samples);
  expect(f.total_samples).toBeLessThan(whole);
  await shot(page, 'timeline-flame-applied');

  await page.reload();
  await expect(cell(page, 'flame').getByTestId('time-applied')).toContainText('s of run r000');
  await expect.poll(() => samplesShown(page)).toBe(f.total_samples);

  await cell(page, 'flame').getByTestId('time-applied-clear').click();
  await expect(page).not.toHaveURL(/sel=/);
  await expect(cell(page, 'flame').getByTestId('time-applied')).toHaveCount(0);
  await expect.poll(() => samplesShown(page)).toBe(whole);
});

test('brush the timeline: the block cell shows the range; the timeline draws queue depth, IOPS and fio\'s log', async ({ page }) => {
  const id = ids['block-loop']!;
  await page.goto(`/compare?v=1&captures=${id}&baseline=${id}&cell=timeline&cell=block:c=qd,iops`);
  await expect(page.getByTestId('timeline-legend')).toContainText('queue depth, IOPS');
  await brush(page, 0.25, 0.5);
  await expect(page).toHaveURL(/sel=\d+-\d+/);
  await expect(cell(page, 'block').getByTestId('time-applied')).toContainText('s of run r000');
  await expect(cell(page, 'block').getByTestId('time-applied')).toContainText('window of every run');
  await shot(page, 'timeline-block-applied');
  await page.reload();
  await expect(cell(page, 'block').getByTestId('time-applied')).toBeVisible();
});

test('brush the timeline: the scheduler cell shows the range on its charts over time, each run cut on its own clock', async ({ page, request }) => {
  const id = ids['sched-pinned']!;
  await page.goto(`/compare?v=1&captures=${id}&baseline=${id}&cell=timeline&cell=sched:v=rate`);
  await expect(page.getByTestId('timeline-legend')).toContainText('CPU rows');
  await brush(page, 0.3, 0.7);
  await expect(cell(page, 'sched').getByTestId('time-applied')).toContainText("since each run's start, in every run, each on its own trace");
  // each run's chart shows the selection moved onto its trace by that run's own offset (not the brushed run's)
  const [from, to] = /sel=(\d+)-(\d+)/.exec(page.url())!.slice(1).map(Number) as [number, number];
  const ov = (await (await request.get(`/api/captures/${id}/timeline`)).json()) as { runs: { id: string; sched_offset_ns: number | null }[] };
  const offsets = ov.runs.filter((r) => r.sched_offset_ns !== null);
  expect(new Set(offsets.map((r) => r.sched_offset_ns)).size).toBeGreaterThan(1);
  const panels = cell(page, 'sched').getByTestId('sched-rate-panel');
  await expect(panels).toHaveCount(offsets.length);
  for (const r of offsets) {
    const lo = Math.max(0, from - r.sched_offset_ns!);
    const hi = Math.max(lo + 1, to - r.sched_offset_ns!);
    await expect(panels.filter({ hasText: `run ${r.id}` })).toContainText(`selection: ${(lo / 1e9).toFixed(3)}–${(hi / 1e9).toFixed(3)} s of its trace`);
  }
  await shot(page, 'timeline-sched-applied');
  await page.reload();
  await expect(cell(page, 'sched').getByTestId('time-applied')).toContainText('s of run r000');
  // the draw after the brush, measured by the cell itself
  const ms = Number(await page.getByTestId('timeline-canvas').getAttribute('data-draw-ms'));
  console.log(`timeline redraw: ${ms.toFixed(1)} ms`);
  expect(ms).toBeLessThan(100);
});

test('a run= the capture does not have: the timeline says so and shows the first run; the flame graph does not apply its selection', async ({ page }) => {
  const id = ids['stacks-xfs']!;
  await page.goto(`/compare?v=1&captures=${id}&baseline=${id}&cell=timeline:run=r007;sel=1000000000-2000000000&cell=flame`);
  await expect(page.getByTestId('timeline-missing-run')).toHaveText('run r007 is not in this capture; showing r000');
  await expect(page.getByLabel('Timeline run')).toHaveValue('r000');
  await expect(page.getByTestId('timeline-selection')).toContainText('1.000–2.000 s of run r007: of a run this capture does not have, not drawn on r000');
  await expect(cell(page, 'flame').getByTestId('time-applied')).toContainText('run r007 is not in this capture: not applied');
  await shot(page, 'timeline-missing-run');
  // a run it has: no notice
  await page.goto(`/compare?v=1&captures=${id}&baseline=${id}&cell=timeline:run=r001`);
  await expect(page.getByLabel('Timeline run')).toHaveValue('r001');
  await expect(page.getByTestId('timeline-missing-run')).toHaveCount(0);
});

test('a cap= the notebook does not have: the timeline says so and draws the baseline, its selection not applied', async ({ page }) => {
  const id = ids['stacks-xfs']!;
  const other = ids['block-loop']!;
  await page.goto(`/compare?v=1&captures=${id}&baseline=${id}&cell=timeline:cap=${other};run=r001;sel=1000000000-2000000000`);
  const said = page.getByTestId('timeline-missing-capture');
  await expect(said).toContainText(`capture ${other} is not in this notebook; showing `);
  await expect(said).toContainText('its baseline');
  await expect(page.getByLabel('Timeline capture')).toHaveValue(id);
  await expect(page.getByTestId('timeline-missing-run')).toHaveCount(0);
  await expect(page.getByTestId('timeline-selection')).toContainText('of a capture this notebook does not have, not drawn on');
  await shot(page, 'timeline-missing-capture');
  // a capture it has: no notice
  await page.goto(`/compare?v=1&captures=${id}&baseline=${id}&cell=timeline:cap=${id}`);
  await expect(page.getByLabel('Timeline capture')).toHaveValue(id);
  await expect(page.getByTestId('timeline-missing-capture')).toHaveCount(0);
});

test('a run with none of the tracks: one sentence says how to record them, no empty axis', async ({ page, request }) => {
  const dir = path.join(repo, 'datasets', 'fs-xfs');
  const f = fs.readdirSync(dir).find((x) => x.endsWith('.iolens.tar.gz'))!;
  const r = await request.post('/api/captures', { multipart: { file: { name: f, mimeType: 'application/gzip', buffer: fs.readFileSync(path.join(dir, f)) } } });
  expect(r.status(), await r.text()).toBeLessThan(300);
  const id = ((await r.json()) as { id: string }).id;
  await page.goto(`/compare?v=1&captures=${id}&baseline=${id}&cell=timeline`);
  // the shared empty state of the four kinds the timeline draws: what is missing, where, how to record each
  const nothing = page.getByTestId('timeline-nothing');
  await expect(nothing.getByRole('heading')).toContainText(/^Run r000 of .+ has none of the timeline's tracks: no scheduler traces, block layer events, fio logs over time or call stacks$/);
  for (const cmd of ['iolens-collect run --sched …', 'iolens-collect run --block DEV …', 'iolens-collect run --fio-logs 500 …', 'iolens-collect run --stacks …']) await expect(nothing.locator('code', { hasText: cmd })).toBeVisible();
  await expect(nothing).toHaveAttribute('data-empty', 'sched block fiologs stacks');
  await expect(page.getByTestId('timeline-canvas')).toHaveCount(0);
  await shot(page, 'timeline-nothing');
});

test('a saved notebook keeps the selection: its permalink opens with the flame graph of that range', async ({ page, request }) => {
  const id = ids['stacks-xfs']!;
  const doc = {
    format_version: 1,
    title: 'timeline selection',
    captures: [id],
    baseline: id,
    cells: [
      { type: 'view', kind: 'timeline', state: `cap=${id};run=r001;sel=1000000000-2000000000`, full: false },
      { type: 'view', kind: 'flame', state: '', full: false },
    ],
  };
  const r = await request.post('/api/notebooks', { data: { document: doc, parent: null } });
  expect(r.status(), await r.text()).toBe(201);
  const nid = ((await r.json()) as { id: string }).id;
  await page.goto(`/n/${nid}`);
  await expect(cell(page, 'flame').getByTestId('time-applied')).toContainText('1.000–2.000 s of run r001');
  await expect(page.getByTestId('timeline-selection')).toContainText('1.000–2.000 s of run r001');
  await expect(cell(page, 'flame').getByTestId('flame-summary')).toContainText('run r001');
  // the range's bounds (s since the run's first sample, to the µs) fit their fields: not cut to '1.13936'
  for (const label of ['From, seconds', 'To, seconds']) {
    const input = cell(page, 'flame').getByLabel(label);
    await expect(input).toHaveValue(/^\d+\.\d{4,6}$/);
    expect(await input.evaluate((el) => el.scrollWidth <= el.clientWidth), label).toBe(true);
  }
  // the legend names the track each server time is of
  await expect(page.getByTestId('timeline-legend')).toContainText(/server time per track: samples \d+ ms/);
});
