// Where a flame notebook's first paint goes, on a loaded machine: alternating loads of two or more
// iolens servers (e.g. a build before and after a change, each `iolens serve` on a copy of the same
// store), each in a fresh browser context with a Chrome trace (CDP Tracing: devtools.timeline, v8,
// V8's compiles), until the flame canvas is drawn and the next animation frame has run, as
// flame_speed.mjs times it. Per load: that time (wall), when the first frame was drawn, and the
// CPU time of the page's main thread until then (the thread time of its tasks, which other
// processes on the cores change far less than wall time), with its compile, layout, style and GC
// parts, and the renderer's CPU on all its threads; when the scripts and the API answers were in (Resource Timing) and when React's first render
// (the task that draws the first frame) began. Medians per URL.
// Usage (the store and capture of flame_speed.py; headless Chromium):
//   node bench/flame_trace.mjs RUNS 'http://127.0.0.1:P1/compare?v=1&captures=ID&baseline=ID&cell=flame' 'http://127.0.0.1:P2/...'
import { chromium } from 'playwright-core';
import { waitPaint } from './paint_wait.mjs';

const [runs, ...urls] = process.argv.slice(2);
if (!(+runs > 0) || urls.length === 0) {
  console.error('usage: node bench/flame_trace.mjs RUNS URL [URL ...]');
  process.exit(2);
}
const browser = await chromium.launch({
  executablePath: process.env.IOLENS_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
});

// flame_speed.mjs's probe, noting also when the first frame is drawn (the cell pushes each draw's
// time to window.__iolensFlameDraws)
const PROBE = () => {
  window.__paintAt = null;
  window.__drawAt = null;
  const draws = [];
  draws.push = function (...a) {
    window.__drawAt ??= performance.now();
    return Array.prototype.push.apply(this, a);
  };
  window.__iolensFlameDraws = draws;
  const raf = (f) => requestAnimationFrame(f);
  const tick = () => (window.__iolensFlameDraws.length > 0 ? raf(() => (window.__paintAt = performance.now())) : raf(tick));
  raf(tick);
};
const CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'loading', 'v8', 'toplevel', 'blink.user_timing', 'disabled-by-default-v8.compile'];

async function load(url) {
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await ctx.addInitScript(PROBE);
  const page = await ctx.newPage();
  const cdp = await ctx.newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  const complete = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
  await cdp.send('Tracing.start', { transferMode: 'ReportEvents', traceConfig: { includedCategories: CATEGORIES } });
  await page.goto(url, { waitUntil: 'commit' });
  const paint = await waitPaint(page, 120_000);
  const draw = await page.evaluate(() => window.__drawAt);
  // the cell's own timings of the answer's read and the layout (queries.ts, layouts.ts)
  const [read, layout] = await page.evaluate(() => [window.__iolensFlameDecodes?.[0] ?? NaN, window.__iolensFlameLayouts?.[0] ?? NaN]);
  // when the page's API answers were in (the last one's responseEnd: the flame answer, the capture
  // list, health; index.html preloads them since 6ce4e28) and when its scripts were
  const [api, scripts] = await page.evaluate(() => {
    const res = performance.getEntriesByType('resource');
    const end = (re) => {
      const t = res.filter((e) => re.test(new URL(e.name).pathname)).map((e) => e.responseEnd);
      return t.length ? Math.max(...t) : NaN;
    };
    return [end(/^\/api\//), end(/^\/assets\/.*\.js$/)];
  });
  await cdp.send('Tracing.end');
  await complete;
  await ctx.close();

  const path = new URL(url).pathname;
  const nav = events.find((e) => e.name === 'navigationStart' && e.args?.data?.documentLoaderURL?.includes(path));
  const main = events.find((e) => e.ph === 'M' && e.name === 'thread_name' && e.pid === nav.pid && e.args.name === 'CrRendererMain');
  const end = nav.ts + paint * 1000;
  const mine = events.filter((e) => e.pid === nav.pid && e.tid === main.tid && e.ph === 'X' && e.ts >= nav.ts && e.ts <= end).sort((a, b) => a.ts - b.ts);
  const r = { paint, draw, read, lay: layout, api, scripts, render: NaN, renderCpu: NaN, cpu: 0, compile: 0, layout: 0, style: 0, gc: 0, all: 0 };
  // the renderer's CPU on all its threads until the paint (the main thread's, and its workers': V8's
  // off-thread compiles, the raster, GC helpers), the outermost tasks of each thread: on two cores
  // the workers' work competes with the main thread's, the browser's and the server's
  const threads = new Map();
  for (const e of events) {
    if (e.pid !== nav.pid || e.ph !== 'X' || e.ts < nav.ts || e.ts > end) continue;
    if (!threads.has(e.tid)) threads.set(e.tid, []);
    threads.get(e.tid).push(e);
  }
  for (const list of threads.values()) {
    let upto = 0;
    for (const e of list.sort((x, y) => x.ts - y.ts)) {
      if (e.ts < upto) continue;
      upto = e.ts + e.dur;
      r.all += (e.tdur ?? e.dur) / 1000;
    }
  }
  const cpu = (e) => (e.tdur ?? e.dur) / 1000;
  let until = 0; // tasks nest: count the outermost
  for (const e of mine) {
    if (e.name === 'RunTask' && e.ts >= until) {
      r.cpu += cpu(e);
      until = e.ts + e.dur;
      // React's first render: the task in which the first frame is drawn
      if (draw !== null && e.ts <= nav.ts + draw * 1000 && nav.ts + draw * 1000 <= e.ts + e.dur) {
        r.render = (e.ts - nav.ts) / 1000;
        r.renderCpu = cpu(e);
      }
    }
    if (e.name === 'V8.CompileCode' || e.name === 'v8.compile' || e.name === 'v8.compileModule') r.compile += cpu(e);
    else if (e.name === 'Layout') r.layout += cpu(e);
    else if (e.name === 'UpdateLayoutTree') r.style += cpu(e);
    else if (e.name === 'MinorGC' || e.name === 'MajorGC') r.gc += cpu(e);
  }
  return r;
}

const out = urls.map(() => []);
for (let i = 0; i < +runs; i++) for (const [j, url] of urls.entries()) out[j].push(await load(url));
const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
for (const [j, url] of urls.entries()) {
  const m = (k) => median(out[j].map((x) => x[k])).toFixed(0);
  const all = (k) => out[j].map((x) => x[k].toFixed(0)).join(', ');
  console.log(`${url}\n  paint ${m('paint')} ms (${all('paint')}), first frame drawn at ${m('draw')} ms`);
  console.log(`  main thread CPU until paint ${m('cpu')} ms (${all('cpu')}): compile ${m('compile')}, layout ${m('layout')}, style ${m('style')}, GC ${m('gc')}`);
  console.log(`  the renderer's CPU on all its threads until paint ${m('all')} ms (${all('all')})`);
  console.log(`  scripts in ${m('scripts')} ms, API answers in ${m('api')} ms (${all('api')}), React's first render from ${m('render')} ms (${all('render')}), its task's CPU ${m('renderCpu')} ms (${all('renderCpu')})`);
  console.log(`  the cell's answer read ${m('read')} ms (${all('read')}), flame layout ${m('lay')} ms (${all('lay')})`);
}
await browser.close();
