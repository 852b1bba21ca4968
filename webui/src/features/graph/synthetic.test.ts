import { describe, expect, it } from 'vitest';
import { createColorRegistry } from './colors';
import { createGraph, mergeKnowledgeGraph } from './graphData';
import { parseSynthetic, syntheticGraph } from './synthetic';

describe('synthetic benchmark graph', () => {
  it('parses the size parameter', () => {
    expect(parseSynthetic('5000x20000')).toEqual({ nodes: 5000, edges: 20000 });
    expect(parseSynthetic('10x1000')).toEqual({ nodes: 10, edges: 45 });
    expect(parseSynthetic('x')).toBeNull();
    expect(parseSynthetic(undefined)).toBeNull();
    expect(parseSynthetic('1x0')).toBeNull();
  });

  it('has exactly the nodes and edges asked for, without duplicates', () => {
    const { kg, positions } = syntheticGraph(5000, 20000);
    expect(kg.nodes.length).toBe(5000);
    expect(kg.edges.length).toBe(20000);
    expect(Object.keys(positions).length).toBe(5000);
    const g = createGraph();
    mergeKnowledgeGraph(g, kg, { colorOf: createColorRegistry().colorOf });
    expect(g.order).toBe(5000);
    expect(g.size).toBe(20000);
  });

  it('is deterministic', () => {
    expect(syntheticGraph(50, 100).kg).toEqual(syntheticGraph(50, 100).kg);
  });
});
