// What Sigma draws on its 2D canvases in the theme's colours: node labels (with a halo in the
// background colour, legible over edges) and the hovered node's label box. WebGL and canvas
// cannot use CSS variables: the colours are read from the theme once per switch.
import type { Settings } from 'sigma/settings';
import type { NodeDisplayData, PartialButFor } from 'sigma/types';
import { mixColors } from './colors';
import type { EdgeAttrs, NodeAttrs } from './types';

export interface ThemeColors {
  text: string;
  muted: string;
  surface: string;
  bg: string;
  border: string;
  edge: string;
  primary: string;
  font: string;
}

/** The theme's colours, from the CSS variables of base.css. */
export function readTheme(el: HTMLElement): ThemeColors {
  const css = getComputedStyle(el);
  const v = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  const border = v('--border', '#d5dbe7');
  const muted = v('--muted', '#5b6579');
  return {
    text: v('--text', '#18202f'),
    muted,
    surface: v('--surface', '#ffffff'),
    bg: v('--bg', '#f6f7fb'),
    border,
    edge: mixColors(border, muted, 0.35),
    primary: v('--primary', '#3656d8'),
    font: v('--font', 'system-ui, sans-serif'),
  };
}

export type NodeData = PartialButFor<NodeDisplayData, 'x' | 'y' | 'size' | 'label' | 'color'>;
type S = Settings<NodeAttrs, EdgeAttrs>;

export function drawLabel(ctx: CanvasRenderingContext2D, data: NodeData, s: S, colors: ThemeColors): void {
  if (!data.label) return;
  ctx.font = `${s.labelWeight} ${s.labelSize}px ${s.labelFont}`;
  const x = data.x + data.size + 3;
  const y = data.y + s.labelSize / 3;
  ctx.lineJoin = 'round';
  ctx.lineWidth = 3;
  ctx.strokeStyle = colors.bg;
  ctx.strokeText(data.label, x, y);
  ctx.fillStyle = colors.text;
  ctx.fillText(data.label, x, y);
}

export function drawHover(ctx: CanvasRenderingContext2D, data: NodeData, s: S, colors: ThemeColors): void {
  const size = s.labelSize;
  ctx.font = `${s.labelWeight} ${size}px ${s.labelFont}`;
  const pad = 4;
  const label = data.label ?? '';
  const w = label ? ctx.measureText(label).width + pad * 2 + 2 : 0;
  const h = size + pad * 2;
  const r = data.size + 3;
  ctx.fillStyle = colors.surface;
  ctx.strokeStyle = colors.border;
  ctx.lineWidth = 1;
  ctx.shadowColor = 'rgba(0, 0, 0, 0.25)';
  ctx.shadowBlur = 6;
  ctx.beginPath();
  ctx.arc(data.x, data.y, r, 0, Math.PI * 2);
  if (label) ctx.roundRect(data.x + data.size + 1, data.y - h / 2, w, h, 4);
  ctx.fill();
  ctx.shadowBlur = 0;
  ctx.stroke();
  ctx.beginPath();
  ctx.arc(data.x, data.y, data.size, 0, Math.PI * 2);
  ctx.fillStyle = data.color;
  ctx.fill();
  if (label) {
    ctx.fillStyle = colors.text;
    ctx.fillText(label, data.x + data.size + 1 + pad, data.y + size / 3);
  }
}
