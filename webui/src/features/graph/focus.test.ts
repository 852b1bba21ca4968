import { describe, expect, it } from 'vitest';
import { createColorRegistry } from './colors';
import { focusHighlight, focusLabels, highlightCoverage, FOCUS_LOAD_LIMIT } from './focus';
import { createGraph, mergeKnowledgeGraph, pairKey } from './graphData';

describe('graph focus', () => {
  it('loads the given label', () => {
    expect(focusLabels({ label: ' Alice ', entities: ['X'], relations: [] })).toEqual(['Alice']);
  });

  it('loads the selected entity first, then the others, deduped and capped', () => {
    const entities = Array.from({ length: 20 }, (_, i) => `E${i}`);
    const labels = focusLabels({ entities: ['E1', ...entities], relations: [['R1', 'R2']], select: 'E5' });
    expect(labels[0]).toBe('E5');
    expect(labels.length).toBe(FOCUS_LOAD_LIMIT);
    expect(new Set(labels).size).toBe(labels.length);
    expect(focusLabels({ entities: [], relations: [['A', 'B']] })).toEqual(['A', 'B']);
  });

  it('highlights entities, relations and their endpoints', () => {
    const h = focusHighlight({ entities: ['A', ' '], relations: [['B', 'C']], select: 'D' });
    expect([...h.nodes].sort()).toEqual(['A', 'B', 'C', 'D']);
    expect([...h.edges]).toEqual([pairKey('C', 'B')]);
  });

  it('measures what the loaded graph shows of it', () => {
    const g = createGraph();
    mergeKnowledgeGraph(
      g,
      {
        nodes: ['A', 'B'].map((id) => ({ id, labels: [id], properties: {} })),
        edges: [{ id: 'A-B', source: 'A', target: 'B', properties: {} }],
        is_truncated: false,
      },
      { colorOf: createColorRegistry().colorOf },
    );
    const h = focusHighlight({ entities: ['A', 'Z'], relations: [['A', 'B'], ['A', 'Z']] });
    expect(highlightCoverage(g, h)).toEqual({ nodes: 2, totalNodes: 3, edges: 1, totalEdges: 2 });
  });
});
