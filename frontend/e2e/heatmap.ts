// The flame cell's subsecond heatmap, driven by the mouse, for the specs that select time ranges on it
// (timerange.spec, ramp.spec).
import type { Page } from '@playwright/test';

/** Page coordinates of the centre of heatmap cell (col, row). */
export async function cellXY(page: Page, col: number, row: number): Promise<{ x: number; y: number }> {
  const c = page.getByTestId('heatmap-canvas');
  await c.scrollIntoViewIfNeeded();
  const box = (await c.boundingBox())!;
  const d = await c.evaluate((el) => ({ ...(el as HTMLElement).dataset }));
  return { x: box.x + Number(d.left) + (col + 0.5) * Number(d.cellw), y: box.y + Number(d.top) + (row + 0.5) * Number(d.cellh) };
}

/** A drag from cell `from` to cell `to` (with Shift: range B). */
export async function drag(page: Page, from: [number, number], to: [number, number], shift = false) {
  const a = await cellXY(page, ...from);
  const b = await cellXY(page, ...to);
  if (shift) await page.keyboard.down('Shift');
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 4 });
  await page.mouse.move(b.x, b.y, { steps: 4 });
  await page.mouse.up();
  if (shift) await page.keyboard.up('Shift');
}
