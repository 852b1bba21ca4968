import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/errors';
import type { EntitySources, RelationSources } from '../../api/types';
import { chunksOfDocument, extractionLines, fallbackModel, fromAnswer, isMissingRoute } from './sources';

const entity = { kind: 'entity' as const, name: 'Alice', sourceId: 'chunk-1<SEP>chunk-2<SEP>chunk-1', filePath: 'a.txt<SEP> b.md ' };

describe('sources', () => {
  it('tells a missing route from a missing entity', () => {
    expect(isMissingRoute(new ApiError(404, '404 Not Found', undefined))).toBe(true);
    expect(isMissingRoute(new ApiError(404, 'Not Found', { detail: 'Not Found' }))).toBe(true);
    expect(isMissingRoute(new ApiError(404, "entity 'X' not found", { detail: "entity 'X' not found" }))).toBe(false);
    expect(isMissingRoute(new ApiError(500, 'x', undefined))).toBe(false);
    expect(isMissingRoute(new Error('x'))).toBe(false);
  });

  it('falls back to ids and file names', () => {
    const m = fallbackModel(entity, 'desc');
    expect(m.fallback).toBe(true);
    expect(m.chunkIds).toEqual(['chunk-1', 'chunk-2']);
    expect(m.documents.map((d) => d.file_path)).toEqual(['a.txt', 'b.md']);
    expect(m.totalChunks).toBe(2);
    expect(m.terms).toEqual(['Alice']);
  });

  it('reads the entity sources answer, in the server’s order', () => {
    const answer: EntitySources = {
      entity_name: 'Alice',
      entity_type: 'person',
      description: 'A person',
      total_chunks: 3,
      documents: [{ doc_id: 'doc-1', file_path: 'a.txt', status: 'processed', chunk_ids: ['c2', 'c1'] }],
      chunks: [
        { chunk_id: 'c2', doc_id: 'doc-1', file_path: 'a.txt', chunk_order_index: 1, tokens: 5, content: 'two', extracted: [] },
        { chunk_id: 'c1', doc_id: 'doc-1', file_path: 'a.txt', chunk_order_index: 0, tokens: 5, content: 'one', extracted: [] },
        { chunk_id: 'c9', doc_id: 'doc-2', file_path: 'b.txt', chunk_order_index: 0, tokens: 5, content: 'x', extracted: [] },
      ],
    };
    const m = fromAnswer(entity, answer);
    expect(m.fallback).toBe(false);
    expect(m.chunks.map((c) => c.chunk_id)).toEqual(['c2', 'c1', 'c9']);
    expect(m.totalChunks).toBe(3);
    const doc = m.documents[0];
    expect(doc && chunksOfDocument(m, doc).map((c) => c.chunk_id)).toEqual(['c2', 'c1']);
  });

  it('marks a relation’s endpoints and the keywords the server gives', () => {
    const target = { kind: 'relation' as const, source: 'Alice', target: 'Bob', keywords: '', sourceId: '', filePath: '' };
    const answer: RelationSources = {
      source_entity: 'Alice',
      target_entity: 'Bob',
      keywords: 'friendship, trust',
      description: 'd',
      total_chunks: 0,
      documents: [],
      chunks: [],
    };
    expect(fromAnswer(target, answer).terms).toEqual(['Alice', 'Bob', 'friendship', 'trust']);
  });

  it('lists what the extraction said', () => {
    expect(
      extractionLines([
        { entity_type: 'person', description: 'A mathematician' },
        { keywords: 'k', weight: 2, description: '' },
      ]),
    ).toEqual([
      [
        { label: 'Type', text: 'person' },
        { label: 'Description', text: 'A mathematician' },
      ],
      [
        { label: 'Keywords', text: 'k' },
        { label: 'Weight', text: '2' },
      ],
    ]);
    expect(extractionLines(undefined)).toEqual([]);
  });
});
