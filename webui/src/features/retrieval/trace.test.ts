import { describe, expect, it } from 'vitest';
import type { EntityData, QueryDataResponse, QueryTrace, RelationData } from '../../api/types';
import { explain, graphSelection, hasRecords, originHelp, originLabel, relationKey, scoreFraction } from './trace';

const entity = (name: string, type = 'PERSON'): EntityData => ({
  entity_name: name,
  entity_type: type,
  description: `${name} desc`,
  source_id: 'c1',
  file_path: 'a.txt',
  created_at: 0,
});
const relation = (src: string, tgt: string): RelationData => ({
  src_id: src,
  tgt_id: tgt,
  description: `${src}-${tgt}`,
  keywords: 'works',
  weight: 1,
  source_id: 'c1',
  file_path: 'a.txt',
  created_at: 0,
});

const trace: QueryTrace = {
  entities: [
    { entity_name: 'Bob', score: 0.5, origin: 'relation_endpoint', rank: 2 },
    { entity_name: 'Alice', score: 0.9, origin: 'entity_vector', rank: 1 },
    { entity_name: 'Ghost', score: null, origin: 'entity_vector', rank: 3 },
  ],
  relationships: [{ src_id: 'Bob', tgt_id: 'Alice', score: 0.7, origin: 'relation_vector', rank: 1 }],
  chunks: [{ chunk_id: 'chunk-2', score: 0.8, origin: 'vector', rank: 1 }],
  usage: {},
  timings_ms: {},
};

const data: QueryDataResponse['data'] = {
  entities: [entity('Alice'), entity('Bob'), entity('Carol', 'ORG')],
  relationships: [relation('Alice', 'Bob')],
  chunks: [
    { chunk_id: 'chunk-1', content: 'one', file_path: 'a.txt', reference_id: '1' },
    { chunk_id: 'chunk-2', content: 'two', file_path: 'b.txt', reference_id: '2' },
  ],
};

describe('explain', () => {
  it('orders by the trace rank and joins the records by name, pair and chunk id', () => {
    const e = explain(trace, data, { high_level: ['work'], low_level: ['Alice'] });
    expect(e.traced).toBe(true);
    expect(e.entities.map((r) => [r.rank, r.name, r.score, r.origin, r.record?.entity_type ?? null])).toEqual([
      [1, 'Alice', 0.9, 'entity_vector', 'PERSON'],
      [2, 'Bob', 0.5, 'relation_endpoint', 'PERSON'],
      [3, 'Ghost', null, 'entity_vector', null],
      [4, 'Carol', null, null, 'ORG'],
    ]);
    // (Bob, Alice) in the trace is (Alice, Bob) in the records: undirected
    expect(e.relations).toHaveLength(1);
    expect(e.relations[0]).toMatchObject({ src: 'Bob', tgt: 'Alice', score: 0.7 });
    expect(e.relations[0]?.record?.description).toBe('Alice-Bob');
    expect(e.chunks.map((c) => [c.id, c.score, c.record?.content])).toEqual([
      ['chunk-2', 0.8, 'two'],
      ['chunk-1', null, 'one'],
    ]);
    expect(e.keywords).toEqual({ high: ['work'], low: ['Alice'] });
  });
  it('works from the records alone (a server without traces)', () => {
    const e = explain(null, data);
    expect(e.traced).toBe(false);
    expect(e.entities.map((r) => r.name)).toEqual(['Alice', 'Bob', 'Carol']);
    expect(e.entities.every((r) => r.score === null && r.origin === null)).toBe(true);
    expect(e.keywords).toBeNull();
  });
  it('works from the trace alone, and uses the trace\'s own records and keywords', () => {
    expect(explain(trace, null).entities.every((r) => r.record === null)).toBe(true);
    const withData: QueryTrace = { ...trace, data, keywords: { high_level: ['h'], low_level: [] } };
    expect(hasRecords(withData)).toBe(true);
    expect(hasRecords(trace)).toBe(false);
    const e = explain(withData, null);
    expect(e.entities[0]?.record?.description).toBe('Alice desc');
    expect(e.keywords).toEqual({ high: ['h'], low: [] });
  });
  it('renumbers the server\'s 0-based ranks from 1', () => {
    const t: QueryTrace = {
      ...trace,
      entities: [
        { entity_name: 'B', score: null, origin: 'graph', rank: 1 },
        { entity_name: 'A', score: 0.8, origin: 'vector', rank: 0 },
      ],
    };
    expect(explain(t, null).entities.map((r) => [r.rank, r.name])).toEqual([
      [1, 'A'],
      [2, 'B'],
    ]);
  });
  it('counts repeated trace entries once', () => {
    const t: QueryTrace = { ...trace, entities: [...trace.entities, { entity_name: 'Alice', score: 0.1, origin: 'x', rank: 9 }] };
    expect(explain(t, null).entities.filter((r) => r.name === 'Alice')).toHaveLength(1);
  });
  it('is empty for nothing', () => {
    expect(explain(null, null)).toEqual({ entities: [], relations: [], chunks: [], keywords: null, traced: false });
  });
});

describe('helpers', () => {
  it('relationKey is direction-free', () => {
    expect(relationKey('a', 'b')).toBe(relationKey('b', 'a'));
    expect(relationKey('a', 'b')).not.toBe(relationKey('a', 'c'));
  });
  it('scoreFraction keeps 0..1 scores and scales others to the largest', () => {
    expect(scoreFraction(0.42, [0.42, 0.9])).toBeCloseTo(0.42);
    expect(scoreFraction(5, [5, 10, null])).toBeCloseTo(0.5);
    expect(scoreFraction(null, [1])).toBe(0);
    expect(scoreFraction(-0.2, [-0.2, 0.5])).toBe(0);
  });
  it('originLabel and graphSelection', () => {
    expect(originLabel('entity_vector')).toBe('entity vector');
    expect(originLabel('vector')).toBe('vector match');
    expect(originLabel('graph')).toBe('via graph');
    expect(originLabel(null)).toBe('unknown');
    expect(originHelp('relation')).toContain('relation');
    const sel = graphSelection(explain(trace, data));
    expect(sel.entities).toEqual(['Alice', 'Bob', 'Ghost', 'Carol']);
    expect(sel.relations).toEqual([['Bob', 'Alice']]);
  });
});
