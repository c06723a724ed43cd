// `test` with one browser context and page for all the tests of a spec file, for the files whose tests
// each begin with page.goto and use nothing a context keeps between them (storage, permissions,
// routes, viewport): a fresh context costs Debian's chromium ~2.4 s of CPU, a new renderer that
// compiles the app's JavaScript again without the context's cache (ten notebook loads: 40 s of CPU
// in fresh contexts, 16 s in one page; 2026-11-28). Each test still opens its own URL; before it the
// routes of the test before are removed and the mouse is moved off the page, so that no hover is left.
// Another file, or a worker restarted after a failure, gets a context of its own.
import { test as base, type BrowserContext, type Page } from '@playwright/test';

let shared: { file: string; context: BrowserContext; page: Page } | null = null;

export const test = base.extend({
  page: async ({ browser, baseURL, viewport }, run, testInfo) => {
    if (shared && (shared.file !== testInfo.file || shared.page.isClosed())) {
      await shared.context.close();
      shared = null;
    }
    if (!shared) {
      const context = await browser.newContext({ baseURL, viewport });
      shared = { file: testInfo.file, context, page: await context.newPage() };
    }
    await shared.page.unrouteAll({ behavior: 'ignoreErrors' });
    await shared.page.mouse.move(0, 0);
    await run(shared.page);
  },
});

export { expect } from '@playwright/test';
