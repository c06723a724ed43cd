// One colour per capture, by its position in the compared set (not by baseline), so a capture
// keeps its colour when the baseline changes. Tableau 10: distinct, calm, colour-blind aware.
import { schemeTableau10 } from 'd3-scale-chromatic';

export function captureColor(index: number): string {
  const n = schemeTableau10.length;
  return schemeTableau10[((index % n) + n) % n] ?? '#4e79a7';
}
