// The "Sources" view of an entity or a relation: the chunks and documents it was extracted
// from. Servers with the sources routes (ours) give the chunk texts; on older servers (the
// route answers 404 without a message) the view falls back to the ids and file names kept in the
// node's `source_id` / `file_path` (joined with `<SEP>`).
import { ApiError } from '../../api/errors';
import type { EntitySources, RelationSources, SourceChunk, SourceDocument } from '../../api/types';
import { splitSep } from '../../lib/text';
import { entityTerms, relationTerms } from './highlight';

export type SourcesTarget =
  | { kind: 'entity'; name: string; sourceId: string; filePath: string }
  | { kind: 'relation'; source: string; target: string; keywords: string; sourceId: string; filePath: string };

export interface SourcesModel {
  target: SourcesTarget;
  description: string;
  /** Words to mark in the chunk texts. */
  terms: string[];
  totalChunks: number;
  documents: SourceDocument[];
  chunks: SourceChunk[];
  /** Chunk ids without their text (fallback). */
  chunkIds: string[];
  /** True when the server cannot list chunk texts (fallback from the properties). */
  fallback: boolean;
}

/** A 404 without a message: the route itself is missing (an older server). */
export function isMissingRoute(e: unknown): boolean {
  if (!(e instanceof ApiError) || e.status !== 404) return false;
  const body = e.body;
  if (body === undefined || body === null || body === '') return true;
  if (typeof body === 'object' && 'detail' in body) return (body as { detail?: unknown }).detail === 'Not Found';
  return false;
}

export function termsOf(target: SourcesTarget): string[] {
  return target.kind === 'entity' ? entityTerms(target.name) : relationTerms(target.source, target.target, target.keywords);
}

export function fromAnswer(target: SourcesTarget, answer: EntitySources | RelationSources): SourcesModel {
  // the server's order: documents in the order they contributed, chunks by position
  const chunks = answer.chunks ?? [];
  const keywords = 'keywords' in answer ? answer.keywords : '';
  const t: SourcesTarget = target.kind === 'relation' && keywords ? { ...target, keywords } : target;
  return {
    target: t,
    description: answer.description ?? '',
    terms: termsOf(t),
    totalChunks: answer.total_chunks ?? chunks.length,
    documents: answer.documents ?? [],
    chunks,
    chunkIds: [],
    fallback: false,
  };
}

/** What can be said without the sources route: file names and chunk ids. */
export function fallbackModel(target: SourcesTarget, description: string): SourcesModel {
  const chunkIds = splitSep(target.sourceId);
  const documents: SourceDocument[] = splitSep(target.filePath).map((file_path) => ({
    doc_id: '',
    file_path,
    status: '',
    chunk_ids: [],
  }));
  return {
    target,
    description,
    terms: termsOf(target),
    totalChunks: chunkIds.length,
    documents,
    chunks: [],
    chunkIds,
    fallback: true,
  };
}

export interface ExtractionLine {
  label: string;
  text: string;
}

/** "What the extraction said" in a chunk: the type and description (entity) or keywords, weight and description (relation). */
export function extractionLines(extracted: Record<string, unknown>[] | undefined): ExtractionLine[][] {
  return (extracted ?? []).map((e) => {
    const lines: ExtractionLine[] = [];
    const add = (label: string, v: unknown) => {
      if (v === undefined || v === null || v === '') return;
      lines.push({ label, text: typeof v === 'string' ? v : String(v) });
    };
    add('Type', e.entity_type);
    add('Keywords', e.keywords);
    add('Weight', e.weight);
    add('Description', e.description);
    return lines;
  });
}

/** The chunks of one document (for grouping chunks under their document). */
export function chunksOfDocument(model: SourcesModel, doc: SourceDocument): SourceChunk[] {
  return model.chunks.filter((c) => (doc.doc_id ? c.doc_id === doc.doc_id : c.file_path === doc.file_path));
}
