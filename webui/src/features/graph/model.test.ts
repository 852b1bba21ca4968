import { describe, expect, it, vi } from 'vitest';
import type { KnowledgeGraph } from '../../api/types';
import { pairKey } from './graphData';
import { edgeChangesFrom, GraphModel, nodeChangesFrom } from './model';

function kg(names: string[], links: [string, string][]): KnowledgeGraph {
  return {
    nodes: names.map((id) => ({ id, labels: [id], properties: { entity_id: id, entity_type: 'person', description: id } })),
    edges: links.map(([s, t]) => ({ id: `${s}-${t}`, source: s, target: t, properties: { weight: 1, keywords: 'k' } })),
    is_truncated: false,
  };
}

describe('GraphModel', () => {
  it('replaces the graph and reports truncation', () => {
    const m = new GraphModel();
    const listener = vi.fn();
    m.store.subscribe(listener);
    m.replace({ ...kg(['A', 'B'], [['A', 'B']]), is_truncated: true }, 'A');
    expect(m.state).toMatchObject({ status: 'ready', label: 'A', truncated: true, version: 1 });
    expect(listener).toHaveBeenCalled();
    m.replace(kg(['C'], []), 'C');
    expect(m.graph.nodes()).toEqual(['C']);
    expect(m.state.truncated).toBe(false);
  });

  it('expands: merges new neighbours without losing the selection', () => {
    const m = new GraphModel();
    m.replace(kg(['A', 'B'], [['A', 'B']]), 'A');
    m.select({ kind: 'node', id: 'B' });
    const r = m.merge(kg(['B', 'C', 'D'], [['B', 'C'], ['B', 'D']]), 'B');
    expect(r.addedNodes.sort()).toEqual(['C', 'D']);
    expect(m.graph.order).toBe(4);
    expect(m.state.selected).toEqual({ kind: 'node', id: 'B' });
  });

  it('the selection follows a rename; picks too', () => {
    const m = new GraphModel();
    m.replace(kg(['A', 'B'], [['A', 'B']]), 'A');
    m.select({ kind: 'node', id: 'A' });
    m.togglePick('A');
    const final = m.applyEntityEdit('A', 'Alpha', { entity_type: 'organization', description: 'new', source_id: 'c9' });
    expect(final).toBe('Alpha');
    expect(m.state.selected).toEqual({ kind: 'node', id: 'Alpha' });
    expect(m.state.picked).toEqual(['Alpha']);
    expect(m.graph.getNodeAttributes('Alpha')).toMatchObject({ entityType: 'organization', description: 'new', sourceId: 'c9' });
    expect(m.graph.getNodeAttribute('Alpha', 'props').entity_type).toBe('organization');
  });

  it('updates a description in place', () => {
    const m = new GraphModel();
    m.replace(kg(['A'], []), 'A');
    const v = m.state.version;
    m.applyEntityEdit('A', null, { description: 'changed' });
    expect(m.graph.getNodeAttribute('A', 'description')).toBe('changed');
    expect(m.state.version).toBe(v + 1);
  });

  it('a merge moves the selection to the target and clears the picks', () => {
    const m = new GraphModel();
    m.replace(kg(['A', 'B', 'C'], [['A', 'C'], ['B', 'C']]), '*');
    m.select({ kind: 'node', id: 'A' });
    m.setPicked(['A', 'B']);
    m.applyMerge(['A'], 'B', { description: 'merged' });
    expect(m.graph.hasNode('A')).toBe(false);
    expect(m.state.selected).toEqual({ kind: 'node', id: 'B' });
    expect(m.state.picked).toEqual([]);
    expect(m.graph.getNodeAttribute('B', 'description')).toBe('merged');
  });

  it('hiding or deleting drops the selection of what is gone', () => {
    const m = new GraphModel();
    m.replace(kg(['A', 'B'], [['A', 'B']]), 'A');
    m.select({ kind: 'edge', id: pairKey('A', 'B') });
    m.hide(['B']);
    expect(m.state.selected).toBeNull();
    expect(m.graph.order).toBe(1);
  });

  it('edits, adds and removes relations', () => {
    const m = new GraphModel();
    m.replace(kg(['A', 'B', 'C'], [['A', 'B']]), 'A');
    const e = pairKey('A', 'B');
    m.applyRelationEdit(e, { description: 'd2', keywords: 'x, y', weight: 3 });
    expect(m.graph.getEdgeAttributes(e)).toMatchObject({ description: 'd2', keywords: 'x, y', label: 'x, y', weight: 3 });
    expect(m.addRelation('B', 'C', { description: 'new', keywords: 'z', weight: 2 })).toBe(pairKey('B', 'C'));
    expect(m.addRelation('B', 'missing', {})).toBeNull();
    expect(m.relationsOf('B').map((r) => r.neighbor).sort()).toEqual(['A', 'C']);
    m.removeRelation(e);
    expect(m.graph.hasEdge(e)).toBe(false);
  });

  it('adds a created entity near a node', () => {
    const m = new GraphModel();
    m.replace(kg(['A'], []), 'A');
    m.addEntity('New', { entity_type: 'place', description: 'd' }, 'A');
    expect(m.graph.getNodeAttributes('New')).toMatchObject({ entityType: 'place', description: 'd', label: 'New' });
    m.addEntity('New', {}, null); // no duplicate
    expect(m.graph.order).toBe(2);
  });

  it('hides and shows types', () => {
    const m = new GraphModel();
    m.replace(kg(['A'], []), 'A');
    m.toggleType('Person');
    expect(m.state.hiddenTypes).toEqual(['person']);
    expect(m.isHidden('A')).toBe(true);
    m.toggleType('person');
    expect(m.isHidden('A')).toBe(false);
    m.toggleType('x');
    m.showAllTypes();
    expect(m.state.hiddenTypes).toEqual([]);
  });

  it('converts edit answers to attributes', () => {
    const colorOf = () => '#123';
    expect(nodeChangesFrom({ entity_type: 'x', description: 'd', file_path: 'f' }, colorOf)).toEqual({
      entityType: 'x',
      color: '#123',
      description: 'd',
      filePath: 'f',
    });
    expect(edgeChangesFrom({ weight: 'nope' })).toEqual({});
    expect(nodeChangesFrom(undefined, colorOf)).toEqual({});
  });
});
