import { describe, expect, it } from 'vitest';
import { renderMarkdown } from './markdown';

describe('markdown of text cells', () => {
  it('renders the usual things', () => {
    const html = renderMarkdown('## Result\n\nXFS is **11 %** slower, see `p99`.\n\n- one\n- two\n\n[fio](https://fio.readthedocs.io/)');
    expect(html).toContain('<h2>Result</h2>');
    expect(html).toContain('<strong>11 %</strong>');
    expect(html).toContain('<code>p99</code>');
    expect(html).toContain('<li>one</li>');
    expect(html).toContain('<a href="https://fio.readthedocs.io/" target="_blank" rel="noopener noreferrer">fio</a>');
  });

  it('never passes raw HTML, scripts or dangerous links', () => {
    const html = renderMarkdown(
      '<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n[a](javascript:alert(3)) [b](data:text/html,x) [c](vbscript:x)\n\n![t](http://tracker.example/p.png)',
    );
    expect(html).not.toMatch(/<script|<img|<[a-z]+ [^>]*onerror|href="(javascript|data|vbscript)/i);
    expect(html).toContain('&lt;script&gt;');
  });

  it('in-app links stay in the tab', () => {
    expect(renderMarkdown('[v](/n/abcdefghjk)')).toBe('<p><a href="/n/abcdefghjk">v</a></p>\n');
  });

  it('protocol-relative links are another server, not in-app: not links', () => {
    for (const url of ['//evil.example/x', '///evil.example/x']) {
      const html = renderMarkdown(`[x](${url})`);
      expect(html).not.toContain('<a ');
      expect(html).toContain('evil.example');
    }
    // a backslash is kept as %5C: a path of this server, never read as "//"
    expect(renderMarkdown('[x](/\\evil.example/x)')).toContain('href="/%5Cevil.example/x"');
  });
});
