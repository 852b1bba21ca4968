import { describe, expect, it } from 'vitest';
import type { KnowledgeGraph } from '../../api/types';
import { createColorRegistry } from './colors';
import {
  applySizes,
  createGraph,
  edgeSize,
  mergeKnowledgeGraph,
  mergeNodesInto,
  nodeSize,
  pairKey,
  removeNodes,
  renameNode,
  typeCounts,
} from './graphData';
import { typeKey } from './colors';

function kg(nodes: [string, string?][], edges: [string, string, string?][], truncated = false): KnowledgeGraph {
  return {
    nodes: nodes.map(([id, type]) => ({
      id,
      labels: [id],
      properties: { entity_id: id, entity_type: type ?? 'person', description: `about ${id}`, source_id: 'c1', file_path: 'a.txt' },
    })),
    edges: edges.map(([s, t, kw]) => ({
      id: `${s}-${t}`,
      type: 'DIRECTED',
      source: s,
      target: t,
      properties: { weight: 2, description: `${s} and ${t}`, keywords: kw ?? 'knows', source_id: 'c1', file_path: 'a.txt' },
    })),
    is_truncated: truncated,
  };
}

const colors = () => createColorRegistry().colorOf;

describe('merging /graphs answers', () => {
  it('loads nodes and edges with their properties', () => {
    const g = createGraph();
    const r = mergeKnowledgeGraph(g, kg([['Alice'], ['Bob', 'organization']], [['Alice', 'Bob', 'works with']]), {
      colorOf: colors(),
    });
    expect(r.addedNodes).toEqual(['Alice', 'Bob']);
    expect(r.addedEdges).toEqual([pairKey('Alice', 'Bob')]);
    const bob = g.getNodeAttributes('Bob');
    expect(bob.entityType).toBe('organization');
    expect(bob.description).toBe('about Bob');
    expect(bob.label).toBe('Bob');
    const e = g.getEdgeAttributes(pairKey('Bob', 'Alice'));
    expect(e).toMatchObject({ src: 'Alice', tgt: 'Bob', keywords: 'works with', label: 'works with', weight: 2 });
  });

  it('dedupes: a second answer updates instead of duplicating, in either edge direction', () => {
    const g = createGraph();
    const colorOf = colors();
    mergeKnowledgeGraph(g, kg([['A'], ['B']], [['A', 'B']]), { colorOf });
    const before = g.getNodeAttributes('A');
    const r = mergeKnowledgeGraph(g, kg([['A'], ['B'], ['B']], [['B', 'A', 'new kw']]), { colorOf });
    expect(g.order).toBe(2);
    expect(g.size).toBe(1);
    expect(r.addedNodes).toEqual([]);
    expect(r.updatedNodes).toEqual(['A', 'B', 'B']);
    expect(g.getEdgeAttribute(pairKey('A', 'B'), 'keywords')).toBe('new kw');
    // positions survive an update
    expect(g.getNodeAttribute('A', 'x')).toBe(before.x);
  });

  it('skips edges whose endpoints are not loaded', () => {
    const g = createGraph();
    const r = mergeKnowledgeGraph(g, kg([['A']], [['A', 'Z']]), { colorOf: colors() });
    expect(r.addedEdges).toEqual([]);
    expect(g.size).toBe(0);
  });

  it('places the new nodes of an expansion near the expanded node', () => {
    const g = createGraph();
    const colorOf = colors();
    mergeKnowledgeGraph(g, kg([['A'], ['B'], ['C']], [['A', 'B'], ['B', 'C']]), { colorOf });
    g.mergeNodeAttributes('C', { x: 500, y: 500 });
    g.mergeNodeAttributes('B', { x: 510, y: 500 });
    const r = mergeKnowledgeGraph(g, kg([['C'], ['D'], ['E'], ['F']], [['C', 'D'], ['C', 'E'], ['C', 'F'], ['B', 'C']]), {
      colorOf,
      anchor: 'C',
    });
    expect(r.addedNodes.sort()).toEqual(['D', 'E', 'F']);
    for (const id of r.addedNodes) {
      const p = g.getNodeAttributes(id);
      expect(Math.hypot(p.x - 500, p.y - 500)).toBeLessThanOrEqual(10.01);
    }
    expect(g.degree('C')).toBe(4);
  });

  it('places the same node at the same place on every load', () => {
    const a = createGraph();
    const b = createGraph();
    mergeKnowledgeGraph(a, kg([['X'], ['Y']], []), { colorOf: colors() });
    mergeKnowledgeGraph(b, kg([['Y'], ['X']], []), { colorOf: colors() });
    expect(a.getNodeAttribute('X', 'x')).toBe(b.getNodeAttribute('X', 'x'));
  });

  it('sizes nodes by degree', () => {
    const g = createGraph();
    mergeKnowledgeGraph(g, kg([['Hub'], ['A'], ['B'], ['C']], [['Hub', 'A'], ['Hub', 'B'], ['Hub', 'C']]), {
      colorOf: colors(),
    });
    expect(g.getNodeAttribute('Hub', 'size')).toBeGreaterThan(g.getNodeAttribute('A', 'size'));
    expect(nodeSize(0, 0, 10)).toBe(5);
    expect(nodeSize(10, 10, 10)).toBe(18);
    expect(nodeSize(10, 10, 5000)).toBe(10);
    expect(edgeSize(2, 4, 10)).toBe(2.5);
  });
});

describe('local edits', () => {
  function abc() {
    const g = createGraph();
    mergeKnowledgeGraph(g, kg([['A'], ['B'], ['C'], ['D']], [['A', 'B'], ['B', 'C'], ['A', 'C'], ['D', 'A']]), {
      colorOf: colors(),
    });
    return g;
  }

  it('renames a node and re-points its edges', () => {
    const g = abc();
    expect(renameNode(g, 'A', 'Alpha', { description: 'new' })).toBe(true);
    expect(g.hasNode('A')).toBe(false);
    expect(g.getNodeAttributes('Alpha')).toMatchObject({ label: 'Alpha', description: 'new' });
    expect(g.getNodeAttribute('Alpha', 'props').entity_id).toBe('Alpha');
    expect(g.degree('Alpha')).toBe(3);
    const e = g.getEdgeAttributes(pairKey('D', 'Alpha'));
    expect(e.src).toBe('D');
    expect(e.tgt).toBe('Alpha');
    expect(renameNode(g, 'missing', 'x')).toBe(false);
  });

  it('merges nodes into a target: edges move over, duplicates and self-loops go', () => {
    const g = abc();
    mergeNodesInto(g, ['A', 'C'], 'B');
    expect(g.nodes().sort()).toEqual(['B', 'D']);
    expect(g.edges().map((e) => g.extremities(e).sort().join('-'))).toEqual(['B-D']);
  });

  it('merges into a target that is not loaded by renaming the first source', () => {
    const g = abc();
    mergeNodesInto(g, ['A', 'D'], 'New', { description: 'merged' });
    expect(g.hasNode('New')).toBe(true);
    expect(g.hasNode('A') || g.hasNode('D')).toBe(false);
    expect(g.getNodeAttribute('New', 'description')).toBe('merged');
    expect(g.neighbors('New').sort()).toEqual(['B', 'C']);
  });

  it('removes nodes with their edges', () => {
    const g = abc();
    removeNodes(g, ['A', 'nope']);
    expect(g.order).toBe(3);
    expect(g.size).toBe(1);
    applySizes(g);
  });

  it('counts types for the legend', () => {
    const g = createGraph();
    mergeKnowledgeGraph(g, kg([['A', 'Person'], ['B', 'person'], ['C', 'place'], ['D', '']], []), { colorOf: colors() });
    const counts = typeCounts(g, typeKey);
    expect(counts.get('person')?.count).toBe(2);
    expect(counts.get('place')?.count).toBe(1);
    expect(counts.get('')?.type).toBe('unknown');
  });
});
