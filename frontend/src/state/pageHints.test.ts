// @vitest-environment happy-dom
// index.html's word on the link's captures without call stacks (api/index_preload.py's meta).
import { describe, expect, it } from 'vitest';
import { withoutStacksOfPage } from './pageHints';

describe("the server's word on captures without stacks (index.html's meta)", () => {
  it('is read from the page, empty without it', () => {
    const doc = new DOMParser().parseFromString('<html><head><meta name="iolens-without-stacks" content="a1,b2"></head></html>', 'text/html');
    expect(withoutStacksOfPage(doc)).toEqual(['a1', 'b2']);
    expect(withoutStacksOfPage(new DOMParser().parseFromString('<html><head></head></html>', 'text/html'))).toEqual([]);
    expect(withoutStacksOfPage(undefined)).toEqual([]);
  });
});
