"""A small, safe Markdown for exports: blocks and inline spans parsed here, then written as
plain text (text.py) or escaped HTML (html.py). No raw HTML ever passes: `<b>` is shown as the
characters `<b>`. Links keep http(s) and mailto URLs only. Images are shown as links.

Supported: ATX headings (#..######), paragraphs, - * + and 1. lists (one level; indented lines
continue an item), ``` fenced and 4-space indented code, > quotes, --- rules; inline `code`,
**strong**, *em*/_em_, [text](url), <url> and bare http(s) URLs. The frontend renders with
markdown-it (html: false), which agrees on this subset.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

# --- blocks -------------------------------------------------------------------------------


@dataclass
class Block:
    kind: str  # heading | para | list | code | quote | rule
    text: str = ""
    level: int = 0  # heading level
    ordered: bool = False
    start: int = 1
    items: list[str] = field(default_factory=list)
    children: list[Block] = field(default_factory=list)


_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$")
_RULE = re.compile(r"^ {0,3}([-*_])(?:\s*\1){2,}\s*$")
_BULLET = re.compile(r"^ {0,3}[-*+]\s+(.*)$")
_ORDERED = re.compile(r"^ {0,3}(\d{1,9})[.)]\s+(.*)$")
_FENCE = re.compile(r"^ {0,3}(```+|~~~+)(.*)$")
_QUOTE = re.compile(r"^ {0,3}>\s?(.*)$")


def parse(text: str) -> list[Block]:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", "    ").split("\n")
    blocks: list[Block] = []
    i = 0
    para: list[str] = []

    def flush() -> None:
        if para:
            blocks.append(Block("para", " ".join(s.strip() for s in para)))
            para.clear()

    while i < len(lines):
        line = lines[i]
        if not line.strip():
            flush()
            i += 1
            continue
        m = _FENCE.match(line)
        if m:
            flush()
            fence = m.group(1)
            code = []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(fence):
                code.append(lines[i])
                i += 1
            blocks.append(Block("code", "\n".join(code)))
            i += 1
            continue
        if line.startswith("    ") and not para:
            code = []
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                code.append(lines[i][4:])
                i += 1
            while code and not code[-1].strip():
                code.pop()
            blocks.append(Block("code", "\n".join(code)))
            continue
        m = _HEADING.match(line)
        if m:
            flush()
            blocks.append(Block("heading", (m.group(2) or "").strip(), level=len(m.group(1))))
            i += 1
            continue
        if _RULE.match(line):
            flush()
            blocks.append(Block("rule"))
            i += 1
            continue
        m = _QUOTE.match(line)
        if m:
            flush()
            inner = []
            while i < len(lines) and lines[i].strip():
                q = _QUOTE.match(lines[i])
                inner.append(q.group(1) if q else lines[i])
                i += 1
            blocks.append(Block("quote", children=parse("\n".join(inner))))
            continue
        mb, mo = _BULLET.match(line), _ORDERED.match(line)
        if mb or mo:
            flush()
            ordered = bool(mo)
            start = int(mo.group(1)) if mo else 1
            items: list[str] = []
            while i < len(lines):
                cur = lines[i]
                mb2, mo2 = _BULLET.match(cur), _ORDERED.match(cur)
                if (mo2 if ordered else mb2):
                    items.append((mo2.group(2) if ordered else mb2.group(1)).strip())  # type: ignore[union-attr]
                elif cur.strip() and (cur.startswith("  ") or not (_HEADING.match(cur) or _FENCE.match(cur)
                                                                   or _QUOTE.match(cur) or mb2 or mo2)) and items:
                    items[-1] += " " + cur.strip()
                elif not cur.strip() and i + 1 < len(lines) and (
                        (_ORDERED if ordered else _BULLET).match(lines[i + 1]) or lines[i + 1].startswith("  ")):
                    pass
                else:
                    break
                i += 1
            blocks.append(Block("list", ordered=ordered, start=start, items=items))
            continue
        para.append(line)
        i += 1
    flush()
    return blocks


# --- inline -------------------------------------------------------------------------------

_INLINE = re.compile(
    r"(?P<code>`+)(?P<codetext>.+?)(?P=code)"
    r"|!?\[(?P<ltext>[^\]]*)\]\((?P<url>[^)\s]*)(?:\s+\"[^\"]*\")?\)"
    r"|<(?P<auto>(?:https?://|mailto:)[^>\s]+)>"
    r"|(?P<bare>https?://[^\s<>()]+[^\s<>().,;:!?'\"])"
    r"|\*\*(?P<strong>.+?)\*\*|__(?P<strong2>.+?)__"
    r"|(?<![\w*])\*(?P<em>[^*\s](?:.*?[^*\s])?)\*(?![\w*])|(?<!\w)_(?P<em2>[^_\s](?:.*?[^_\s])?)_(?!\w)"
    r"|\\(?P<esc>[\\`*_{}\[\]()#+\-.!<>])"
)

# "/n/ID" is a path of this server; "//host/x" (and "/\\host/x", which browsers read the same way)
# is another server with the page's scheme: not an in-app link, so not a link at all here.
SAFE_URL = re.compile(r"^(https?://|mailto:|/(?![/\\])|#)", re.IGNORECASE)


@dataclass
class Span:
    kind: str  # text | code | link | strong | em
    text: str = ""
    url: str = ""
    children: list[Span] = field(default_factory=list)


def inline(text: str) -> list[Span]:
    out: list[Span] = []
    pos = 0
    for m in _INLINE.finditer(text):
        if m.start() > pos:
            out.append(Span("text", text[pos:m.start()]))
        pos = m.end()
        if m.group("code"):
            out.append(Span("code", m.group("codetext").strip()))
        elif m.group("url") is not None and m.group(0).lstrip("!").startswith("["):
            url = m.group("url")
            label = m.group("ltext") or url
            if SAFE_URL.match(url):
                out.append(Span("link", url=url, children=inline(label)))
            else:
                out.extend(inline(label))
        elif m.group("auto"):
            out.append(Span("link", url=m.group("auto"), children=[Span("text", m.group("auto"))]))
        elif m.group("bare"):
            out.append(Span("link", url=m.group("bare"), children=[Span("text", m.group("bare"))]))
        elif m.group("strong") or m.group("strong2"):
            out.append(Span("strong", children=inline(m.group("strong") or m.group("strong2"))))
        elif m.group("em") or m.group("em2"):
            out.append(Span("em", children=inline(m.group("em") or m.group("em2"))))
        elif m.group("esc"):
            out.append(Span("text", m.group("esc")))
    if pos < len(text):
        out.append(Span("text", text[pos:]))
    return out


def spans_text(spans: list[Span]) -> str:
    """Inline spans as plain text: `code` kept, *strong* and _em_ marked the mail way, links as 'text <url>'."""
    parts = []
    for s in spans:
        if s.kind == "text":
            parts.append(s.text)
        elif s.kind == "code":
            parts.append(f"`{s.text}`")
        elif s.kind == "strong":
            parts.append(f"*{spans_text(s.children)}*")
        elif s.kind == "em":
            parts.append(f"_{spans_text(s.children)}_")
        elif s.kind == "link":
            label = spans_text(s.children)
            parts.append(s.url if label == s.url else f"{label} <{s.url}>")
    return "".join(parts)


def spans_html(spans: list[Span]) -> str:
    e = html.escape
    parts = []
    for s in spans:
        if s.kind == "text":
            parts.append(e(s.text))
        elif s.kind == "code":
            parts.append(f"<code>{e(s.text)}</code>")
        elif s.kind == "strong":
            parts.append(f"<strong>{spans_html(s.children)}</strong>")
        elif s.kind == "em":
            parts.append(f"<em>{spans_html(s.children)}</em>")
        elif s.kind == "link":
            parts.append(f'<a href="{e(s.url, quote=True)}" rel="noopener noreferrer">{spans_html(s.children)}</a>')
    return "".join(parts)


def to_html(text: str) -> str:
    return "\n".join(_block_html(b) for b in parse(text))


def _block_html(b: Block) -> str:
    if b.kind == "heading":
        return f"<h{b.level + 1 if b.level < 6 else 6}>{spans_html(inline(b.text))}</h{b.level + 1 if b.level < 6 else 6}>"
    if b.kind == "para":
        return f"<p>{spans_html(inline(b.text))}</p>"
    if b.kind == "code":
        return f"<pre><code>{html.escape(b.text)}</code></pre>"
    if b.kind == "rule":
        return "<hr>"
    if b.kind == "quote":
        return "<blockquote>" + "\n".join(_block_html(c) for c in b.children) + "</blockquote>"
    if b.kind == "list":
        tag = "ol" if b.ordered else "ul"
        start = f' start="{b.start}"' if b.ordered and b.start != 1 else ""
        items = "".join(f"<li>{spans_html(inline(it))}</li>" for it in b.items)
        return f"<{tag}{start}>{items}</{tag}>"
    return ""
