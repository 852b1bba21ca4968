import { describe, expect, it } from 'vitest';
import { createColorRegistry, hashString, hslToHex, mixColors, parseRgb, TYPE_PALETTE, typeKey, UNKNOWN_TYPE_COLOR } from './colors';

describe('type colours', () => {
  it('gives a type the same colour in every registry (stable across loads)', () => {
    const a = createColorRegistry();
    const b = createColorRegistry();
    expect(a.colorOf('person')).toBe(b.colorOf('person'));
    expect(a.colorOf('organization')).toBe(b.colorOf('organization'));
  });

  it('keeps a colour once given, whatever comes next', () => {
    const r = createColorRegistry();
    const first = r.colorOf('Location');
    for (let i = 0; i < 50; i++) r.colorOf(`type${i}`);
    expect(r.colorOf('location')).toBe(first);
  });

  it('treats case and surrounding spaces as the same type', () => {
    const r = createColorRegistry();
    expect(r.colorOf(' PERSON ')).toBe(r.colorOf('person'));
    expect(typeKey(' Event ')).toBe('event');
  });

  it('gives distinct types distinct colours while the palette lasts', () => {
    const r = createColorRegistry();
    const colors = new Set<string>();
    for (let i = 0; i < TYPE_PALETTE.length; i++) colors.add(r.colorOf(`t${i}`));
    expect(colors.size).toBe(TYPE_PALETTE.length);
    // beyond the palette: still distinct
    const more = r.colorOf('one-more');
    expect(colors.has(more)).toBe(false);
    expect(more).toMatch(/^#[0-9a-f]{6}$/);
  });

  it('uses the neutral colour for nodes without a type', () => {
    const r = createColorRegistry();
    expect(r.colorOf('')).toBe(UNKNOWN_TYPE_COLOR);
    expect(r.colorOf(undefined)).toBe(UNKNOWN_TYPE_COLOR);
    expect(r.colorOf('UNKNOWN')).toBe(UNKNOWN_TYPE_COLOR);
    expect(r.entries()).toEqual([]);
  });

  it('hashes deterministically', () => {
    expect(hashString('person')).toBe(hashString('person'));
    expect(hashString('a')).not.toBe(hashString('b'));
  });
});

describe('colour maths', () => {
  it('converts HSL to hex', () => {
    expect(hslToHex(0, 1, 0.5)).toBe('#ff0000');
    expect(hslToHex(120, 1, 0.25)).toBe('#008000');
  });

  it('parses and mixes colours', () => {
    expect(parseRgb('#fff')).toEqual([255, 255, 255]);
    expect(parseRgb(' #102030 ')).toEqual([16, 32, 48]);
    expect(parseRgb('rgb(1, 2, 3)')).toEqual([1, 2, 3]);
    expect(parseRgb('hsl(1,2%,3%)')).toBeNull();
    expect(mixColors('#000000', '#ffffff', 0.5)).toBe('#808080');
    expect(mixColors('#102030', '#102030', 0.7)).toBe('#102030');
    expect(mixColors('bad', '#fff', 0.5)).toBe('bad');
  });
});

describe('known types', () => {
  it('gives LightRAG’s default types distinct fixed colours', () => {
    const r = createColorRegistry();
    const defaults = ['person', 'organization', 'location', 'event', 'concept', 'method', 'technology', 'content', 'artifact', 'data', 'creature'];
    const colors = defaults.map((t) => r.colorOf(t));
    expect(new Set(colors).size).toBe(defaults.length);
    expect(createColorRegistry().colorOf('Person')).toBe(TYPE_PALETTE[1]);
    expect(createColorRegistry().colorOf('natural_object')).toBe(TYPE_PALETTE[9]);
  });
});
