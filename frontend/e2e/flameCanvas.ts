// What the flame cell's canvas shows, read from its pixels, for the specs that check a colouring
// (flame.spec, timerange.spec).
import type { Page } from '@playwright/test';

/** Pixels of the flame canvas in a hue (red, blue: channels more than 40 apart), not a grey. */
export const huedPixels = (page: Page): Promise<number> =>
  page.getByTestId('flame-canvas').evaluate((el) => {
    const c = el as HTMLCanvasElement;
    const px = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < px.length; i += 4) if (Math.max(px[i]!, px[i + 1]!, px[i + 2]!) - Math.min(px[i]!, px[i + 1]!, px[i + 2]!) > 40) n++;
    return n;
  });
