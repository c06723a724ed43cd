// The timeline cell in headless Chromium on the bench's capture (driven by bench/timeline.py, which
// starts the server): first draw; then ROUNDS times: brush a range (the cell's redraw of the
// selection, timed by the cell itself: data-draw-ms, the canvas work), zoom to it (from the click to
// every track answered and drawn: two frames after the last answer), back to the whole run.
// usage: node bench/timeline_browser.mjs BASE_URL CAPTURE_ID ROUNDS
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const [base, id, rounds = '5'] = process.argv.slice(2);
const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'iolens-bench-chromium-'));
const ctx = await chromium.launchPersistentContext(userDir, {
  executablePath: process.env.IOLENS_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  viewport: { width: 1440, height: 900 },
});
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  const page = await ctx.newPage();
  let inflight = 0;
  page.on('request', (r) => { if (r.url().includes('/timeline/')) inflight++; });
  const done = (r) => { if (r.url().includes('/timeline/')) inflight--; };
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  const canvas = page.getByTestId('timeline-canvas');
  const settle = async () => {
    await page.waitForTimeout(20);
    while (inflight > 0 || (await canvas.getAttribute('data-loading')) === '1') await page.waitForTimeout(2);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  };
  const t0 = performance.now();
  await page.goto(`${base}/compare?v=1&captures=${id}&baseline=${id}&cell=timeline`);
  await canvas.waitFor({ timeout: 120_000 });
  await settle();
  const first = performance.now() - t0;
  const box = await canvas.boundingBox();
  const d = await canvas.evaluate((el) => ({ ...el.dataset }));
  const x = (f) => box.x + Number(d.left) + f * Number(d.width);
  const brushDraw = [];
  const zoom = [];
  const zoomDraw = [];
  for (let r = 0; r < Number(rounds); r++) {
    const a = 0.2 + 0.05 * r;
    await page.mouse.move(x(a), box.y + 30);
    await page.mouse.down();
    await page.mouse.move(x(a + 0.08), box.y + 30, { steps: 5 });
    await page.mouse.up();
    await settle();
    brushDraw.push(Number(await canvas.getAttribute('data-draw-ms')));
    const t = performance.now();
    await page.getByTestId('timeline-zoom-sel').click();
    await settle();
    zoom.push(performance.now() - t);
    zoomDraw.push(Number(await canvas.getAttribute('data-draw-ms')));
    await page.getByRole('button', { name: 'Whole run' }).click();
    await settle();
  }
  console.log(`Browser (headless Chromium, ${rounds} rounds, medians): first draw ${first.toFixed(0)} ms (navigation to all tracks drawn); ` +
    `brush -> canvas redrawn ${median(brushDraw).toFixed(1)} ms (max ${Math.max(...brushDraw).toFixed(1)}); ` +
    `zoom to the brushed 4.8 s -> 4 tracks answered and drawn ${median(zoom).toFixed(0)} ms (max ${Math.max(...zoom).toFixed(0)}), ` +
    `of which the canvas ${median(zoomDraw).toFixed(1)} ms`);
} finally {
  await ctx.close();
  fs.rmSync(userDir, { recursive: true, force: true });
}
