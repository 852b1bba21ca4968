import { describe, expect, it } from 'vitest';
import type { KnowledgeGraph } from '../../api/types';
import { pairKey } from './graphData';
import { GraphModel } from './model';
import { initialStyle, type StyleState, styleEdge, styleNode } from './styling';

const colors = { text: '#000000', muted: '#666666', surface: '#ffffff', bg: '#ffffff', border: '#cccccc', edge: '#999999', primary: '#0000ff', font: 'sans-serif' };

function setup() {
  const kg: KnowledgeGraph = {
    nodes: [
      { id: 'Ada', labels: ['Ada'], properties: { entity_type: 'person' } },
      { id: 'Engine', labels: ['Engine'], properties: { entity_type: 'artifact' } },
      { id: 'London', labels: ['London'], properties: { entity_type: 'location' } },
    ],
    edges: [
      { id: 'e1', source: 'Ada', target: 'Engine', properties: { keywords: 'designed', weight: 1 } },
      { id: 'e2', source: 'Engine', target: 'London', properties: { keywords: 'built in', weight: 1 } },
    ],
    is_truncated: false,
  };
  const model = new GraphModel();
  model.replace(kg, '*');
  const st: StyleState = initialStyle(model, colors);
  const node = (id: string) => styleNode({ ...st, view: model.state }, id, { ...model.graph.getNodeAttributes(id) });
  const edge = (a: string, b: string) => styleEdge({ ...st, view: model.state }, pairKey(a, b), { ...model.graph.getEdgeAttributes(pairKey(a, b)) });
  return { model, st, node, edge, color: (id: string) => model.graph.getNodeAttribute(id, 'color') };
}

describe('styling', () => {
  it('draws everything plainly by default, edge labels only when asked', () => {
    const { node, edge, color, model } = setup();
    expect(node('Ada')).toMatchObject({ color: color('Ada') });
    expect(node('Ada').hidden).toBeUndefined();
    expect(edge('Ada', 'Engine').label).toBe('');
    model.setEdgeLabels(true);
    expect(edge('Ada', 'Engine').label).toBe('designed');
  });

  it('hides the nodes of hidden types and the edges touching them', () => {
    const { st, model } = setup();
    st.hiddenTypes = new Set(['location']);
    expect(styleNode(st, 'London', { ...model.graph.getNodeAttributes('London') }).hidden).toBe(true);
    expect(styleNode(st, 'Ada', { ...model.graph.getNodeAttributes('Ada') }).hidden).toBeUndefined();
    const key = pairKey('Engine', 'London');
    expect(styleEdge(st, key, { ...model.graph.getEdgeAttributes(key) }).hidden).toBe(true);
  });

  it('raises and names the selected node and colours its relations', () => {
    const { model, node, edge } = setup();
    model.select({ kind: 'node', id: 'Engine' });
    expect(node('Engine')).toMatchObject({ highlighted: true, forceLabel: true, zIndex: 3 });
    expect(edge('Ada', 'Engine').zIndex).toBe(2);
    expect(edge('Ada', 'Engine').color).not.toBe(colors.edge);
  });

  it('fades what is outside the hovered neighbourhood in small graphs, not in big ones', () => {
    const { st, model, color } = setup();
    st.hovered = 'Ada';
    st.hoverSet = new Set(['Ada', 'Engine']);
    const london = () => styleNode(st, 'London', { ...model.graph.getNodeAttributes('London') });
    expect(london().color).not.toBe(color('London'));
    expect(london().label).toBe('');
    expect(styleNode(st, 'Engine', { ...model.graph.getNodeAttributes('Engine') }).forceLabel).toBe(true);
    st.big = true;
    expect(london().color).toBe(color('London'));
  });

  it('highlights the focus from the retrieval page and fades the rest', () => {
    const { model, node, edge, color } = setup();
    model.setHighlight({ nodes: new Set(['Ada', 'Engine']), edges: new Set([pairKey('Ada', 'Engine')]), reason: 'from the answer' });
    expect(node('Ada')).toMatchObject({ forceLabel: true, color: color('Ada') });
    expect(node('London').color).not.toBe(color('London'));
    expect(edge('Ada', 'Engine').color).toBe(colors.primary);
    expect(edge('Engine', 'London').color).not.toBe(colors.primary);
  });
});
