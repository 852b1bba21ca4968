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
