import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../api/errors';
import type { GraphEditResponse, KnowledgeGraph } from '../../api/types';
import { GraphActions, type GraphServer } from './actions';
import { pairKey } from './graphData';
import { GraphModel } from './model';

function kg(names: string[], links: [string, string][] = []): KnowledgeGraph {
  return {
    nodes: names.map((id) => ({ id, labels: [id], properties: { entity_id: id, entity_type: 'person', description: id } })),
    edges: links.map(([s, t]) => ({ id: `${s}-${t}`, source: s, target: t, properties: { weight: 1 } })),
    is_truncated: false,
  };
}

function fakeServer(over: Partial<GraphServer> = {}): GraphServer {
  const ok = async (): Promise<GraphEditResponse> => ({ status: 'success', message: 'ok' });
  return {
    graph: vi.fn(async (label: string) => kg([label])),
    editEntity: vi.fn(ok),
    editRelation: vi.fn(ok),
    createEntity: vi.fn(ok),
    createRelation: vi.fn(ok),
    mergeEntities: vi.fn(ok),
    deleteEntity: vi.fn(async () => ({ status: 'success', doc_id: '', message: 'deleted', status_code: 200 })),
    deleteRelation: vi.fn(async () => ({ status: 'success', doc_id: '', message: 'deleted', status_code: 200 })),
    entityExists: vi.fn(async () => ({ exists: false })),
    ...over,
  };
}

const opts = { depth: 2, maxNodes: 100 };

describe('GraphActions', () => {
  it('shows the answer of the latest load only', async () => {
    const resolvers: Record<string, (g: KnowledgeGraph) => void> = {};
    const server = fakeServer({
      graph: (label: string) => new Promise<KnowledgeGraph>((res) => (resolvers[label] = res)),
    });
    const model = new GraphModel();
    const actions = new GraphActions(model, server);
    const first = actions.load('Old', opts);
    const second = actions.load('New', opts);
    resolvers.New?.(kg(['New']));
    resolvers.Old?.(kg(['Old']));
    expect(await second).toBe(true);
    expect(await first).toBe(false);
    expect(model.graph.nodes()).toEqual(['New']);
    expect(model.state.label).toBe('New');
  });

  it('dispose aborts the load in flight and ignores its answer; later loads work', async () => {
    let resolve: ((g: KnowledgeGraph) => void) | null = null;
    let signal: AbortSignal | undefined;
    const server = fakeServer({
      graph: (_label: string, _d: number, _m: number, s?: AbortSignal) => {
        signal = s;
        return new Promise<KnowledgeGraph>((res) => (resolve = res));
      },
    });
    const model = new GraphModel();
    const actions = new GraphActions(model, server);
    const pending = actions.load('Gone', opts);
    actions.dispose();
    expect(signal?.aborted).toBe(true);
    resolve!(kg(['Gone']));
    expect(await pending).toBe(false);
    expect(model.graph.order).toBe(0);
    server.graph = async (label: string) => kg([label]);
    expect(await actions.load('Next', opts)).toBe(true);
    expect(model.graph.nodes()).toEqual(['Next']);
  });

  it('reports a load error with the server’s message', async () => {
    const model = new GraphModel();
    const actions = new GraphActions(model, fakeServer({ graph: async () => Promise.reject(new ApiError(500, 'storage down', {})) }));
    expect(await actions.load('X', opts)).toBe(false);
    expect(model.state).toMatchObject({ status: 'error', error: 'storage down' });
  });

  it('loads a focus: one neighbourhood per entity, merged, highlighted, selected', async () => {
    const graph = vi.fn(async (label: string, _depth: number) => kg([label, `${label}-friend`], [[label, `${label}-friend`]]));
    const model = new GraphModel();
    const found = await new GraphActions(model, fakeServer({ graph })).loadFocus(
      { entities: ['A', 'B'], relations: [['A', 'B']], select: 'B' },
      opts,
    );
    expect(graph.mock.calls.map((c) => [c[0], c[1]])).toEqual([
      ['B', 1],
      ['A', 1],
    ]);
    expect(model.graph.order).toBe(4);
    expect(found).toBe(2);
    expect(model.state.selected).toEqual({ kind: 'node', id: 'B' });
    expect(model.state.highlight?.edges.has(pairKey('A', 'B'))).toBe(true);
  });

  it('a focus survives a failing label', async () => {
    const graph = vi.fn(async (label: string) => {
      if (label === 'Gone') throw new ApiError(500, 'x', {});
      return kg([label]);
    });
    const model = new GraphModel();
    await new GraphActions(model, fakeServer({ graph })).loadFocus({ entities: ['Gone', 'Here'], relations: [] }, opts);
    expect(model.graph.nodes()).toEqual(['Here']);
  });

  it('applies a rename, and a rename that merged', async () => {
    const model = new GraphModel();
    model.replace(kg(['A', 'B', 'C'], [['A', 'C']]), '*');
    const editEntity = vi.fn(async (): Promise<GraphEditResponse> => ({
      status: 'success',
      message: 'ok',
      data: { entity_type: 'person', description: 'd' },
      operation_summary: { merged: false, renamed: true, final_entity: 'Alpha' },
    }));
    const actions = new GraphActions(model, fakeServer({ editEntity }));
    const r = await actions.editEntity({ entityName: 'A', updatedData: { entity_name: 'Alpha' }, rename: 'Alpha' }, false);
    expect(editEntity).toHaveBeenCalledWith('A', { entity_name: 'Alpha' }, true, false);
    expect(r).toMatchObject({ finalName: 'Alpha', merged: false });
    expect(model.graph.hasNode('Alpha')).toBe(true);

    const merging = fakeServer({
      editEntity: async () => ({
        status: 'success',
        message: "Entity merged successfully into 'B'",
        data: { description: 'merged' },
        operation_summary: { merged: true, merge_status: 'success', target_entity: 'B', final_entity: 'B', renamed: true },
      }),
      graph: async () => kg(['B', 'C'], [['B', 'C']]),
    });
    const r2 = await new GraphActions(model, merging).editEntity(
      { entityName: 'Alpha', updatedData: { entity_name: 'B' }, rename: 'B' },
      true,
    );
    expect(r2).toMatchObject({ finalName: 'B', merged: true });
    expect(model.graph.hasNode('Alpha')).toBe(false);
    expect(model.graph.hasEdge(pairKey('B', 'C'))).toBe(true);
  });

  it('creates, merges and deletes', async () => {
    const model = new GraphModel();
    model.replace(kg(['A', 'B']), '*');
    const server = fakeServer({
      createRelation: async () => ({ status: 'success', message: 'ok', data: { description: 'd', keywords: 'k', weight: 2 } }),
      graph: async (label: string) => kg([label, 'A'], [[label, 'A']]),
    });
    const actions = new GraphActions(model, server);
    await actions.createEntity('N', { entity_type: 'x', description: 'd' }, 'A');
    expect(model.state.selected).toEqual({ kind: 'node', id: 'N' });
    await actions.createRelation('A', 'Far', { description: 'd' });
    expect(model.graph.hasNode('Far')).toBe(true);
    expect(model.state.selected).toEqual({ kind: 'edge', id: pairKey('A', 'Far') });
    expect(await actions.deleteRelation(pairKey('A', 'Far'))).toBe('deleted');
    expect(server.deleteRelation).toHaveBeenCalled();
    await actions.mergeEntities(['N'], 'B');
    expect(model.graph.hasNode('N')).toBe(false);
    await actions.deleteEntity('B');
    expect(model.graph.hasNode('B')).toBe(false);
  });
});
