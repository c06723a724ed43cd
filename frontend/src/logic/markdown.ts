// Markdown of text cells -> HTML that is safe to insert: markdown-it with raw HTML off (a `<b>`
// in the text shows as the characters `<b>`), links limited to http(s), mailto and in-app paths,
// images shown as links (no request to another server), links opened in a new tab. Pure; tests
// in markdown.test.ts. The exports render the same subset in Python (iolens/exports/markdown.py).
import MarkdownIt from 'markdown-it';

// "/n/ID" is in-app; "//host/x" and "/\host/x" are another server (protocol-relative): refused.
const SAFE_LINK = /^(https?:\/\/|mailto:|\/(?![/\\])|#)/i;

const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });
md.disable(['image']);
md.validateLink = (url: string) => SAFE_LINK.test(url.trim());

const defaultLinkOpen =
  md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  const t = tokens[idx]!;
  const href = String(t.attrGet('href') ?? '');
  if (!href.startsWith('#') && !/^\/(?![/\\])/.test(href)) {
    t.attrSet('target', '_blank');
    t.attrSet('rel', 'noopener noreferrer');
  }
  return defaultLinkOpen(tokens, idx, options, env, self);
};

export function renderMarkdown(text: string): string {
  return md.render(text);
}
