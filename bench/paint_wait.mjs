// Shared by flame_speed.mjs and flame_trace.mjs.
//
// Waits for the probe's paint time (window.__paintAt) without Playwright's waitForFunction, whose
// polling puts Playwright's own script (hundreds of KB) into the page, parsed and run on the page's
// main thread in the middle of the load being timed (seen in Chrome traces of the 51k iolens page,
// 2026-11-28: 20-130 ms of that thread, before boot.ts's module had run); an animation-frame loop
// started by page.evaluate does not.
export const waitPaint = (page, timeout) =>
  page.evaluate(
    (timeout) =>
      new Promise((resolve, reject) => {
        const t0 = performance.now();
        const tick = () =>
          window.__paintAt !== null && window.__paintAt !== undefined
            ? resolve(window.__paintAt)
            : performance.now() - t0 > timeout
              ? reject(new Error(`not painted in ${timeout} ms`))
              : requestAnimationFrame(tick);
        tick();
      }),
    timeout,
  );
