// What the server says about a page's link in the index.html it serves (api/index_preload.py),
// known before the page's first request: the link's captures without call stacks, whose flame
// answer is a 404 (boot.ts does not ask for it; the flame cell shows another capture).

/** The link's captures the server said have no call stacks (`<meta name="iolens-without-stacks">`). */
export function withoutStacksOfPage(doc: Document | undefined = globalThis.document): string[] {
  const m = doc?.querySelector('meta[name="iolens-without-stacks"]')?.getAttribute('content');
  return m ? m.split(',').filter(Boolean) : [];
}
