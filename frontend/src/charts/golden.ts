// Golden SVG files for chart tests (Observable Plot's way): a chart rendered to static markup,
// one element per line, numbers already rounded by the layouts. A missing golden file fails, and a
// mismatch writes NAME-changed.svg beside it and fails; only IOLENS_BLESS=1 (exactly "1") writes
// the golden files (new or changed).
// Open the .svg files in a browser: they double as a gallery of the charts.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'golden');

// The app's chart classes (styles.css), so that a golden file opened in a browser looks like the app.
const STYLE =
  '<style>text{font:10.5px system-ui,sans-serif;fill:#656d76}.chart-grid{stroke:#eef1f4}.chart-axis{stroke:#c4ccd4}' +
  '.chart-label{font-size:11px}.chart-x-unit{fill:#8c959f}</style>';

/** Static markup of an SVG element, one tag per line, with the SVG namespace and styles so that files open. */
export function svgText(el: ReactElement): string {
  const html = renderToStaticMarkup(el).replace(/^<svg ([^>]*)>/, `<svg xmlns="http://www.w3.org/2000/svg" $1>${STYLE}`);
  return html.replace(/></g, '>\n<') + '\n';
}

/** Whether this run writes golden files: IOLENS_BLESS=1 only (not "0", not any other value). */
export const blessing = (): boolean => process.env.IOLENS_BLESS === '1';

/** Compare with golden/NAME.svg; returns null when equal (or blessed), else what differs or is missing. */
export function checkGolden(name: string, el: ReactElement): string | null {
  const text = svgText(el);
  const file = path.join(DIR, `${name}.svg`);
  const changed = path.join(DIR, `${name}-changed.svg`);
  if (blessing()) {
    fs.mkdirSync(DIR, { recursive: true });
    fs.writeFileSync(file, text);
    if (fs.existsSync(changed)) fs.rmSync(changed);
    return null;
  }
  if (!fs.existsSync(file)) {
    fs.writeFileSync(changed, text);
    return `${path.relative(process.cwd(), file)} is missing (the drawing is in ${path.relative(process.cwd(), changed)}; IOLENS_BLESS=1 writes it)`;
  }
  const want = fs.readFileSync(file, 'utf8');
  if (want === text) {
    if (fs.existsSync(changed)) fs.rmSync(changed);
    return null;
  }
  fs.writeFileSync(changed, text);
  const a = want.split('\n');
  const b = text.split('\n');
  const i = a.findIndex((line, k) => line !== b[k]);
  return `${name}.svg differs from line ${i + 1}: want ${JSON.stringify(a[i])}, got ${JSON.stringify(b[i])} (see ${path.relative(process.cwd(), changed)}; IOLENS_BLESS=1 accepts)`;
}
