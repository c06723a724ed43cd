// The block cell in headless Chromium on a big capture: first draw, then each zoom / pan key until
// every chart is drawn again. Driven by bench/block_views_browser.py (which starts the server);
// usage: node bench/block_views_browser.mjs BASE_URL CAPTURE_ID ROUNDS
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const [base, id, rounds = '3'] = process.argv.slice(2);
const KEYS = ['+', '+', '+', '+', 'ArrowRight', 'ArrowRight', 'ArrowLeft', '+', '+', 'ArrowRight', '-', '-', 'Escape'];
const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'iolens-bench-chromium-'));
const ctx = await chromium.launchPersistentContext(userDir, {
  executablePath: process.env.IOLENS_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  viewport: { width: 1440, height: 900 },
});
try {
  const page = await ctx.newPage();
  let inflight = 0;
  let requests = 0;
  page.on('request', (r) => { if (r.url().includes('/api/block/')) { inflight++; requests++; } });
  const done = (r) => { if (r.url().includes('/api/block/')) inflight--; };
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  // every block request answered, then two frames painted
  const settle = async () => {
    await page.waitForTimeout(30);
    while (inflight > 0) await page.waitForTimeout(2);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  };
  const t0 = performance.now();
  await page.goto(`${base}/compare?v=1&captures=${id}&baseline=${id}&cell=block:c=qd,iops,bw,lat,hist,size,scatter`);
  await page.getByTestId('chart-qd').locator('path').first().waitFor({ timeout: 60_000 });
  await settle();
  const first = performance.now() - t0;
  const steps = [];
  for (let r = 0; r < Number(rounds); r++) {
    await page.locator('.block-cell').focus();
    for (const k of KEYS) {
      const n0 = requests;
      const t = performance.now();
      await page.keyboard.press(k);
      await settle();
      steps.push({ key: k, ms: performance.now() - t, requests: requests - n0 });
    }
  }
  console.log(JSON.stringify({ first_ms: first, steps }));
} finally {
  await ctx.close();
  fs.rmSync(userDir, { recursive: true, force: true });
}
