// Flame graph first paint and interaction in headless Chromium: iolens (the notebook page with one
// flame cell) against speedscope (#profileURL= of folded stacks, then of perf script text). Driven by
// bench/flame_speed.py, which makes the inputs and starts both servers; usage:
//   node bench/flame_speed.mjs '{"iolens": URL, "static": URL, "runs": 5, "script": true, "sizes": [...]}'
// Prints one JSON line: per size, the loads of each tool and iolens's interaction timings.
import { chromium } from 'playwright-core';
import { waitPaint } from './paint_wait.mjs';

const plan = JSON.parse(process.argv[2]);
const browser = await chromium.launch({
  executablePath: process.env.IOLENS_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
});
const err = (...a) => console.error('[flame_speed.mjs]', ...a);

// Each load gets a fresh context (Playwright's own temporary profile: no HTTP cache, no storage).

// In the page before any script: note when the graph is painted, as performance.now() (ms since
// navigation start). iolens: the first frame drawn on the flame canvas, then the next animation
// frame. speedscope: the title names the loaded profile, then two animation frames (it draws on
// the first frame after the profile is set).
const PROBE = () => {
  window.__paintAt = null;
  const raf = (f) => requestAnimationFrame(f);
  const iolens = location.pathname.startsWith('/compare');
  const tick = () => {
    if (iolens) {
      if (window.__iolensFlameDraws && window.__iolensFlameDraws.length > 0) return raf(() => (window.__paintAt = performance.now()));
    } else if (/ - speedscope$/.test(document.title)) {
      return raf(() => raf(() => (window.__paintAt = performance.now())));
    }
    raf(tick);
  };
  raf(tick);
};

async function load(url, timeout = 300_000) {
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await ctx.addInitScript(PROBE);
  const page = await ctx.newPage();
  page.on('pageerror', (e) => err('page error', url, e.message));
  page.on('console', (m) => m.type() === 'error' && err('console error', url, m.text()));
  page.on('requestfailed', (r) => err('request failed', r.url(), r.failure()?.errorText));
  page.on('response', (r) => r.status() >= 400 && err('HTTP', r.status(), r.url()));
  await page.goto(url, { waitUntil: 'commit' });
  const paint = await waitPaint(page, timeout);
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  // V8's used heap plus the typed arrays' buffers (backingStorageSize, where Chromium reports it)
  const heap = await cdp.send('Runtime.getHeapUsage');
  const extra = await page.evaluate(() => ({
    layout_ms: window.__iolensFlameLayouts?.[0] ?? null,
    draw_ms: window.__iolensFlameDraws?.[0] ?? null,
    decode_ms: window.__iolensFlameDecodes?.[0] ?? null,
  }));
  return { ctx, page, res: { paint_ms: paint, heap_mb: (heap.usedSize + (heap.backingStorageSize ?? 0)) / 1e6, ...extra } };
}

// --- interaction: input event (its timeStamp) -> the animation frame after the canvas is drawn ---
async function arm(page, type, until) {
  await page.evaluate(
    ([type, until]) => {
      const draws = () => window.__iolensFlameDraws?.length ?? 0;
      const n0 = draws();
      let t0 = null;
      addEventListener(type, (e) => (t0 ??= e.timeStamp), { capture: true, once: true });
      window.__pending = new Promise((resolve) => {
        const started = performance.now();
        const tick = () => {
          const done = until === 'draw' ? draws() > n0 : !!document.querySelector('[data-testid=flame-tooltip]');
          // the frame that shows the change has run its callbacks: a task posted now runs once that
          // frame's rendering (style, layout, paint) is done, the "after next paint" of INP
          if (t0 !== null && done) return setTimeout(() => resolve(performance.now() - t0), 0);
          if (performance.now() - started > 20_000) return resolve(null);
          requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      });
    },
    [type, until],
  );
}
const settle = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

async function interactions(page) {
  const out = { zoom_in: [], zoom_out: [], search_key: [], hover: [] };
  const chart = page.getByTestId('flame-chart');
  // a frame near the root (flame: the root is the bottom row, 16 px rows): the third row, where
  // the command's first functions are wide
  const targets = [0.15, 0.35, 0.5, 0.65, 0.85];
  for (let k = 0; k < targets.length; k++) {
    await chart.scrollIntoViewIfNeeded();
    const box = await chart.boundingBox();
    const x = box.x + box.width * targets[k];
    const y = box.y + box.height - 16 * 2.5;
    const away = async () => {
      await page.mouse.move(box.x + 2, Math.max(box.y - 30, 1));
      await settle(page);
    };
    await away();
    await arm(page, 'mousemove', 'tooltip');
    await page.mouse.move(x, y);
    const h = await page.evaluate(() => window.__pending);
    if (h !== null) out.hover.push(h);
    await arm(page, 'click', 'draw');
    await page.mouse.click(x, y);
    const zi = await page.evaluate(() => window.__pending);
    if (zi === null) {
      err('click at', x, y, 'did not zoom');
      continue;
    }
    out.zoom_in.push(zi);
    await away();
    await arm(page, 'keydown', 'draw');
    await page.keyboard.press('Escape');
    const zo = await page.evaluate(() => window.__pending);
    if (zo !== null) out.zoom_out.push(zo);
    await settle(page);
  }
  // typed search: every keystroke until the canvas shows its matches
  const input = page.getByLabel('Search frames (regular expression)');
  for (const word of ['xfs_file', 'iomap_dio']) {
    await input.click();
    await input.fill('');
    await settle(page);
    await page.waitForTimeout(400);
    for (const ch of word) {
      await arm(page, 'keydown', 'draw');
      await page.keyboard.type(ch);
      const s = await page.evaluate(() => window.__pending);
      if (s !== null) out.search_key.push(s);
    }
    await page.keyboard.press('Escape');
    await page.waitForTimeout(400);
  }
  return out;
}

const results = {};
try {
  for (const size of plan.sizes) {
    const r = (results[size.tag] = { before: [], iolens: [], ss_folded: [], ss_script: [] });
    const urls = {
      before: `${plan.before}/compare?v=1&captures=${size.capture}&baseline=${size.capture}&cell=flame`,
      iolens: `${plan.iolens}/compare?v=1&captures=${size.capture}&baseline=${size.capture}&cell=flame`,
      ss_folded: `${plan.static}/speedscope/index.html#profileURL=${encodeURIComponent(`${plan.static}/${size.tag}.folded.txt`)}`,
      ss_script: `${plan.static}/speedscope/index.html#profileURL=${encodeURIComponent(`${plan.static}/${size.tag}.perf.txt`)}`,
    };
    const kinds = [...(plan.before ? ['before'] : []), 'iolens', 'ss_folded', ...(plan.script ? ['ss_script'] : [])];
    for (let run = 0; run < plan.runs; run++) {
      for (const kind of kinds) {
        if (kind === 'ss_script' && run >= (plan.script_runs ?? plan.runs)) continue;
        const { ctx, page, res } = await load(urls[kind]);
        r[kind].push(res);
        err(size.tag, kind, `run ${run + 1}`, `${res.paint_ms.toFixed(0)} ms`, `${res.heap_mb.toFixed(0)} MB`);
        if ((kind === 'iolens' || kind === 'before') && run === plan.runs - 1) r[`interaction_${kind}`] = await interactions(page);
        await ctx.close();
      }
    }
  }
  console.log(JSON.stringify(results));
} finally {
  await browser.close();
}
