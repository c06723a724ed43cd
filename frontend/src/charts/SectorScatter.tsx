// Sector vs time (layout in sectorScatter.ts): the I/Os as points on a canvas (reads filled,
// writes and others hollow), axes and interaction in an SVG on top: the same brush, pan, reset and
// shared crosshair as the time-series charts, and a hover box for the point under the pointer.
import { useEffect, useId, useMemo, useRef, type ReactNode } from 'react';
import { formatInstant, formatSize } from '../logic/blockFormat';
import { layoutScatter, nearestPoint, type ScatterInputSeries } from './sectorScatter';
import { BrushRect, TimeAxes } from './TimeSeriesChart';
import { useTimeBrush, type TimeInteraction } from './timeBrush';
import { Tooltip } from './Tooltip';
import './charts.css';

export interface ScatterSeriesView extends ScatterInputSeries {
  name: string;
  /** 'run r000 · device 7,1' */
  detail: string;
  /** I/Os each point stands for (a sample: 8^level). */
  weight: number;
}

interface Props extends TimeInteraction {
  series: readonly ScatterSeriesView[];
  domain: [number, number];
  width: number;
  height?: number;
  stale?: boolean;
  foot?: ReactNode;
}

export function SectorScatter({ series, domain, width, height = 260, stale = false, foot, ...it }: Props) {
  const [d0, d1] = domain;
  const l = useMemo(() => layoutScatter(series, [d0, d1], width, height), [series, d0, d1, width, height]);
  const canvas = useRef<HTMLCanvasElement>(null);
  const clipId = `sclip${useId().replace(/[^a-zA-Z0-9]/g, '')}`;
  const { drag, mouse, handlers } = useTimeBrush(l.plot, l.t, domain, it);

  useEffect(() => {
    const c = canvas.current;
    if (!c) return;
    const dpr = window.devicePixelRatio || 1;
    c.width = Math.round(width * dpr);
    c.height = Math.round(height * dpr);
    const g = c.getContext('2d');
    if (!g) return;
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, width, height);
    g.save();
    g.beginPath();
    g.rect(l.plot.left, l.plot.top - 2, l.plot.right - l.plot.left, l.plot.bottom - l.plot.top + 4);
    g.clip();
    g.globalAlpha = stale ? 0.3 : 0.6;
    for (const s of series) {
      g.fillStyle = s.color;
      g.strokeStyle = s.color;
      g.lineWidth = 1;
      for (let i = 0; i < s.t.length; i++) {
        const x = l.x(s.t[i]!);
        const y = l.y(s.sector[i]! * 512);
        if (s.op[i] === 'read') g.fillRect(x - 1, y - 1, 2.2, 2.2);
        else g.strokeRect(x - 1.5, y - 1.5, 3, 3);
      }
    }
    g.restore();
  }, [l, series, width, height, stale]);

  const near = mouse && !drag ? nearestPoint(series, l, mouse.x, mouse.y) : null;
  let tip = null;
  if (near && mouse) {
    const s = series[near[0]]!;
    const i = near[1];
    const sector = s.sector[i]!;
    const bytes = s.bytes[i];
    tip = (
      <Tooltip
        x={mouse.x}
        y={Math.max(l.plot.top, mouse.y - 40)}
        width={width}
        head={`${s.op[i]} issued at ${formatInstant(s.t[i]!, 1000)}`}
        rows={[
          {
            key: s.key,
            color: s.color,
            name: s.name,
            detail: `${s.detail}${s.weight > 1 ? ` · 1 point per ${s.weight} I/Os (sample)` : ''}`,
            value: `sector ${sector.toLocaleString('en-US')} (${formatSize(sector * 512)})${bytes !== null && bytes !== undefined ? ` + ${formatSize(bytes)}` : ''}`,
          },
        ]}
      />
    );
  }
  const hoverX = it.hoverT !== null && it.hoverT >= domain[0] && it.hoverT <= domain[1] ? l.x(it.hoverT) : null;
  return (
    <div className="ts-wrap" style={{ width, height }} data-testid="scatter-chart">
      <canvas ref={canvas} style={{ width, height }} className="scatter-canvas" />
      <svg width={width} height={height} className="overlay-svg">
        <defs>
          <clipPath id={clipId}>
            <rect x={l.plot.left} y={l.plot.top} width={Math.max(0, l.plot.right - l.plot.left)} height={Math.max(0, l.plot.bottom - l.plot.top)} />
          </clipPath>
        </defs>
        <TimeAxes l={l} />
        <text transform={`translate(11,${(l.plot.top + l.plot.bottom) / 2}) rotate(-90)`} textAnchor="middle" className="chart-label">
          disk offset, {l.yUnit}
        </text>
        {hoverX !== null && <line x1={hoverX} x2={hoverX} y1={l.plot.top} y2={l.plot.bottom} className="crosshair" />}
        {drag?.mode === 'zoom' && <BrushRect l={l} x0={drag.x0} x1={drag.x1} label={it.brushLabel} />}
        {drag?.mode === 'pan' && <rect className="pan-shade" clipPath={`url(#${clipId})`} x={l.plot.left + (drag.x1 - drag.x0)} y={l.plot.top} width={l.plot.right - l.plot.left} height={l.plot.bottom - l.plot.top} />}
        <rect className="brush-overlay" x={l.plot.left} y={l.plot.top} width={Math.max(0, l.plot.right - l.plot.left)} height={Math.max(0, l.plot.bottom - l.plot.top)} {...handlers} />
        <rect className="pan-overlay" x={l.plot.left} y={l.plot.bottom} width={Math.max(0, l.plot.right - l.plot.left)} height={height - l.plot.bottom} {...handlers} />
      </svg>
      {tip}
      {foot}
    </div>
  );
}
