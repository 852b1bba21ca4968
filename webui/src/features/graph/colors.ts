// Colours of entity types. A type keeps its colour for the whole session (a registry), and the
// first colour a type gets comes from a hash of its name, so the same types look the same from
// one load to the next. These are data colours (chosen to read on both the light and the dark
// background); the UI's own colours come from the theme variables.

/**
 * Twenty categorical colours, mid-lightness so both themes show them; the first eleven are the
 * most distinct and go to LightRAG's default entity types.
 */
export const TYPE_PALETTE: readonly string[] = [
  '#4e79a7', // blue
  '#f28e2b', // orange
  '#59a14f', // green
  '#e15759', // red
  '#b07aa1', // purple
  '#edc948', // yellow
  '#17becf', // cyan
  '#9c755f', // brown
  '#ff9da7', // pink
  '#bcbd22', // olive
  '#8c6bb1', // violet
  '#76b7b2', // teal
  '#d62728', // crimson
  '#1f77b4', // deep blue
  '#ff7f0e', // deep orange
  '#2ca02c', // deep green
  '#e377c2', // magenta
  '#6b8e23', // moss
  '#c49c94', // tan
  '#5f9ea0', // slate teal
];

/** LightRAG's default entity types (and frequent synonyms) get the most distinct colours. */
export const KNOWN_TYPE_SLOTS: Readonly<Record<string, number>> = {
  person: 1,
  organization: 0,
  organisation: 0,
  location: 2,
  geo: 2,
  event: 3,
  concept: 4,
  method: 5,
  technology: 6,
  content: 7,
  artifact: 8,
  data: 9,
  creature: 10,
  naturalobject: 9,
  category: 6,
};

/** The colour of nodes without a type. */
export const UNKNOWN_TYPE_COLOR = '#9aa4b8';

/** The key a type is compared by: trimmed, lower case ("Person" and "person " are one type). */
export function typeKey(type: string | null | undefined): string {
  return (type ?? '').trim().toLowerCase();
}

/** FNV-1a, 32 bits: a small, stable string hash. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** `#rrggbb` from hue (degrees), saturation and lightness (0..1); WebGL wants hex or rgb. */
export function hslToHex(h: number, s: number, l: number): string {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1));
  const hex = (x: number) =>
    Math.round(x * 255)
      .toString(16)
      .padStart(2, '0');
  return `#${hex(f(0))}${hex(f(8))}${hex(f(4))}`;
}

/** A colour outside the palette (when all twenty are taken): golden-angle hues. */
export function extraColor(n: number): string {
  return hslToHex((n * 137.508 + 20) % 360, 0.55, 0.55);
}

/** Parses `#rgb` / `#rrggbb` / `rgb(r, g, b)`; null otherwise. */
export function parseRgb(color: string): [number, number, number] | null {
  const c = color.trim();
  let m = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/i.exec(c);
  if (m) return [parseInt(m[1]! + m[1]!, 16), parseInt(m[2]! + m[2]!, 16), parseInt(m[3]! + m[3]!, 16)];
  m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})/i.exec(c);
  if (m) return [parseInt(m[1]!, 16), parseInt(m[2]!, 16), parseInt(m[3]!, 16)];
  m = /^rgba?\(\s*(\d+)[\s,]+(\d+)[\s,]+(\d+)/i.exec(c);
  if (m) return [Number(m[1]), Number(m[2]), Number(m[3])];
  return null;
}

/** `a` moved towards `b` by `t` (0 = a, 1 = b), as `#rrggbb` (dimmed nodes fade into the background). */
export function mixColors(a: string, b: string, t: number): string {
  const x = parseRgb(a);
  const y = parseRgb(b);
  if (!x || !y) return a;
  const c = x.map((v, i) => Math.round(v + ((y[i] ?? v) - v) * t));
  return `#${c.map((v) => v.toString(16).padStart(2, '0')).join('')}`;
}

export interface ColorRegistry {
  /** The colour of a type (assigned on first use, then fixed). */
  colorOf(type: string | null | undefined): string;
  /** Every type key seen, with its colour. */
  entries(): [string, string][];
}

export function createColorRegistry(palette: readonly string[] = TYPE_PALETTE): ColorRegistry {
  const assigned = new Map<string, string>();
  const used = new Set<string>();
  let extra = 0;
  return {
    colorOf(type) {
      const key = typeKey(type);
      if (key === '' || key === 'unknown') return UNKNOWN_TYPE_COLOR;
      const known = assigned.get(key);
      if (known) return known;
      let color: string | undefined;
      const slot = KNOWN_TYPE_SLOTS[key.replace(/[\s_-]+/g, '')];
      const start = slot ?? hashString(key) % palette.length;
      for (let i = 0; i < palette.length; i++) {
        const candidate = palette[(start + i) % palette.length];
        if (candidate !== undefined && !used.has(candidate)) {
          color = candidate;
          break;
        }
      }
      color ??= extraColor(extra++);
      assigned.set(key, color);
      used.add(color);
      return color;
    },
    entries: () => [...assigned.entries()],
  };
}
