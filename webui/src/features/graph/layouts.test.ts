import { describe, expect, it } from 'vitest';
import { createColorRegistry } from './colors';
import { createGraph, mergeKnowledgeGraph } from './graphData';
import { autoForceMs, centroid, forceSettings, layoutPositions, seededRandom, shouldAnimate } from './layouts';

function sample(n: number) {
  const g = createGraph();
  const nodes = Array.from({ length: n }, (_, i) => ({
    id: `n${i}`,
    labels: [`n${i}`],
    properties: { entity_type: i % 2 ? 'person' : 'place', description: '' },
  }));
  const edges = nodes.slice(1).map((node, i) => ({ id: `e${i}`, source: 'n0', target: node.id, properties: { weight: 1 } }));
  mergeKnowledgeGraph(g, { nodes, edges, is_truncated: false }, { colorOf: createColorRegistry().colorOf });
  return g;
}

describe('layouts', () => {
  it('gives every node a finite position, for every one-shot layout', () => {
    const g = sample(40);
    for (const name of ['circular', 'random', 'circlepack', 'noverlap'] as const) {
      const pos = layoutPositions(g, name);
      expect(Object.keys(pos).length).toBe(40);
      for (const p of Object.values(pos)) {
        expect(Number.isFinite(p.x) && Number.isFinite(p.y)).toBe(true);
      }
    }
  });

  it('places each layout as it says: a circle, distinct points, types grouped, overlaps spread', () => {
    const g = sample(12);
    const dist = (a: { x: number; y: number }, b: { x: number; y: number }) => Math.hypot(a.x - b.x, a.y - b.y);
    const distinct = (pos: Record<string, { x: number; y: number }>) =>
      new Set(Object.values(pos).map((p) => `${p.x.toFixed(6)},${p.y.toFixed(6)}`)).size;

    const circle = layoutPositions(g, 'circular');
    const radii = Object.values(circle).map((p) => dist(p, { x: 0, y: 0 }));
    expect(Math.max(...radii) - Math.min(...radii)).toBeLessThan(1e-6);
    expect(radii[0]).toBeGreaterThan(0);
    expect(distinct(circle)).toBe(12);

    expect(distinct(layoutPositions(g, 'random'))).toBe(12);

    // circle pack by entity type: the mean distance within a type is below the one across types
    const pack = layoutPositions(g, 'circlepack');
    const type = (k: string) => g.getNodeAttribute(k, 'entityType');
    let within = 0;
    let nWithin = 0;
    let across = 0;
    let nAcross = 0;
    const keys = Object.keys(pack);
    for (const a of keys) {
      for (const b of keys) {
        if (a >= b) continue;
        const d = dist(pack[a]!, pack[b]!);
        if (type(a) === type(b)) {
          within += d;
          nWithin++;
        } else {
          across += d;
          nAcross++;
        }
      }
    }
    expect(within / nWithin).toBeLessThan(across / nAcross);

    // every node on the same spot: noverlap pulls them apart by at least their size
    g.updateEachNodeAttributes((_k, a) => ({ ...a, x: 0, y: 0 }), { attributes: ['x', 'y'] });
    const spread = layoutPositions(g, 'noverlap');
    expect(distinct(spread)).toBe(12);
    const minGap = Math.min(...keys.flatMap((a) => keys.filter((b) => b > a).map((b) => dist(spread[a]!, spread[b]!))));
    expect(minGap).toBeGreaterThan(1);
  });

  it('does not touch the graph (positions are targets)', () => {
    const g = sample(10);
    const before = g.getNodeAttributes('n3').x;
    layoutPositions(g, 'circular');
    expect(g.getNodeAttributes('n3').x).toBe(before);
  });

  it('is repeatable', () => {
    const g = sample(20);
    expect(layoutPositions(g, 'random')).toEqual(layoutPositions(g, 'random'));
    const r1 = seededRandom(5);
    const r2 = seededRandom(5);
    expect([r1(), r1()]).toEqual([r2(), r2()]);
  });

  it('infers ForceAtlas2 settings from the size', () => {
    expect(forceSettings(sample(10)).barnesHutOptimize).toBe(false);
    expect(forceSettings(sample(900)).barnesHutOptimize).toBe(true);
    expect(forceSettings(sample(10)).slowDown).toBeGreaterThan(1);
    expect(autoForceMs(1)).toBe(0);
    expect(autoForceMs(100)).toBe(1900);
    expect(autoForceMs(100000)).toBe(8000);
    expect(shouldAnimate(100)).toBe(true);
    expect(shouldAnimate(5000)).toBe(false);
  });

  it('computes centroids', () => {
    const g = sample(3);
    g.mergeNodeAttributes('n1', { x: 0, y: 0 });
    g.mergeNodeAttributes('n2', { x: 10, y: 20 });
    expect(centroid(g, ['n1', 'n2', 'missing'])).toEqual({ x: 5, y: 10 });
    expect(centroid(g, [])).toEqual({ x: 0, y: 0 });
  });
});
