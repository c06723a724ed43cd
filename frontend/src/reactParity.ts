// What React's DOM did that preact/compat does not (the page runs Preact: vite.config.ts
// REACT_ALIASES), found by walking the pages of both builds side by side. Installed before the first
// render (main.tsx, before boot.ts) and before every Vitest file (vite.config.ts setupFiles), so that the tests test
// what ships. A hook on Preact's `options.vnode`, run before compat's own (which turns onChange into
// oninput on text inputs).
import 'react'; // preact/compat's hook is installed first: ours wraps it, so it sees the props as written
import { options, type VNode } from 'preact';

const KEEPS_ONCHANGE = /fil|che|rad/; // compat leaves onChange on these input types (render.js)

/**
 * - `onChange` of a controlled text input or textarea: compat listens to `input` only, React also to
 *   `change` (and fires when the value differs from the one it knows). Chromium clears a
 *   `type="search"` field on Escape with a `change` and no `input` event when a keydown handler
 *   blurs it first (the library's filter): the field showed empty while the list stayed filtered.
 *   A `change` whose value is not the rendered `value` now calls onChange too.
 * - `spellCheck={false}`: compat sets the `spellCheck` property, which is no property of the DOM
 *   (`spellcheck` is), as an attribute whose `false` removes it: the search boxes were spell-checked.
 *   React writes spellcheck="false".
 */
export function parityProps(type: string, props: Record<string, unknown>): void {
  if (typeof props.spellCheck === 'boolean') props.spellCheck = String(props.spellCheck);
  const onChange = props.onChange;
  if (typeof onChange === 'function' && (type === 'input' || type === 'textarea') && !KEEPS_ONCHANGE.test(String(props.type ?? '')) && 'value' in props && props.onChangeCapture === undefined) {
    const shown = String(props.value ?? '');
    props.onChangeCapture = (e: Event) => {
      if ((e.currentTarget as HTMLInputElement).value !== shown) (onChange as (e: Event) => void)(e);
    };
  }
}

const previous = options.vnode;
options.vnode = (vnode: VNode) => {
  if (typeof vnode.type === 'string') parityProps(vnode.type, vnode.props as Record<string, unknown>);
  previous?.(vnode);
};
