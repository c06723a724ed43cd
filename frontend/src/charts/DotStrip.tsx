import { stripLayout } from './dotStrip';

interface Props {
  values: readonly number[];
  mean: number | null;
  baselineMean: number | null;
  domain: readonly [number, number];
  color: string;
  width?: number;
}

/** Per-repeat values as dots on the row's shared scale; the tick is the mean, the grey line the baseline's mean. */
export function DotStrip({ values, mean, baselineMean, domain, color, width = 72 }: Props) {
  const l = stripLayout(values, mean, baselineMean, domain, width);
  const mid = l.height / 2;
  return (
    <svg className="dot-strip" width={l.width} height={l.height} aria-hidden="true">
      <line x1={4} x2={l.width - 4} y1={mid} y2={mid} className="dot-strip-track" />
      {l.baselineX !== null && <line x1={l.baselineX} x2={l.baselineX} y1={1} y2={l.height - 1} className="dot-strip-base" />}
      {l.meanX !== null && <line x1={l.meanX} x2={l.meanX} y1={2} y2={l.height - 2} stroke={color} strokeWidth={1.5} />}
      {l.dots.map((x, i) => (
        <circle key={i} cx={x} cy={mid} r={2.5} fill={color} fillOpacity={0.55} stroke={color} strokeWidth={0.75} />
      ))}
    </svg>
  );
}
