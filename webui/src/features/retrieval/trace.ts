// "Why this answer": the retrieval trace (scores, origins, ranks — ours) joined with the full
// records (/query/data's `data`, or the trace's own `data`) by entity name, (source, target) and
// chunk id. Either side may be missing: a server without traces still gives the records, and a
// trace without records still gives names and scores.
import type { ChunkData, EntityData, QueryDataResponse, QueryTrace, RelationData } from '../../api/types';
import { t } from '../../i18n';

export interface Scored {
  score: number | null;
  /** How the record came in (e.g. "entity_vector"), null when unknown. */
  origin: string | null;
  /** 1-based position in the retrieval order. */
  rank: number;
}

export interface EntityRow extends Scored {
  name: string;
  record: EntityData | null;
}

export interface RelationRow extends Scored {
  src: string;
  tgt: string;
  record: RelationData | null;
}

export interface ChunkRow extends Scored {
  id: string;
  record: ChunkData | null;
}

export interface Keywords {
  high: string[];
  low: string[];
}

export interface Explanation {
  entities: EntityRow[];
  relations: RelationRow[];
  chunks: ChunkRow[];
  keywords: Keywords | null;
  /** Scores/origins are known (a trace was available). */
  traced: boolean;
}

type Data = QueryDataResponse['data'];

/** Relations are undirected in LightRAG: (a, b) and (b, a) are the same relation. */
export function relationKey(src: string, tgt: string): string {
  return src <= tgt ? `${src}\u0000${tgt}` : `${tgt}\u0000${src}`;
}

function join<T, R>(
  traced: T[] | undefined,
  records: R[] | undefined,
  keyOfTrace: (t: T) => string,
  keyOfRecord: (r: R) => string,
  make: (key: string, t: T | null, r: R | null, rank: number) => Scored & object,
): (Scored & object)[] {
  const byKey = new Map<string, R>();
  for (const r of records ?? []) {
    const k = keyOfRecord(r);
    if (!byKey.has(k)) byKey.set(k, r);
  }
  const used = new Set<string>();
  const rows: (Scored & object)[] = [];
  const ordered = [...(traced ?? [])].sort((a, b) => rankOf(a) - rankOf(b));
  for (const t of ordered) {
    const k = keyOfTrace(t);
    if (used.has(k)) continue;
    used.add(k);
    rows.push(make(k, t, byKey.get(k) ?? null, rows.length + 1));
  }
  for (const [k, r] of byKey) {
    if (used.has(k)) continue;
    used.add(k);
    rows.push(make(k, null, r, rows.length + 1));
  }
  return rows;
}

function rankOf(t: unknown): number {
  const r = (t as { rank?: unknown }).rank;
  return typeof r === 'number' && Number.isFinite(r) ? r : Number.MAX_SAFE_INTEGER;
}

function scoreOf(t: { score?: unknown } | null): number | null {
  const s = t?.score;
  return typeof s === 'number' && Number.isFinite(s) ? s : null;
}

function originOf(t: { origin?: unknown } | null): string | null {
  const o = t?.origin;
  return typeof o === 'string' && o !== '' ? o : null;
}

/**
 * Joins `trace` and `data` (the records). When `data` is not given, the trace's own `data` is
 * used if it has one. Rows follow the trace's rank; records the trace does not mention follow.
 */
export function explain(
  trace: QueryTrace | null | undefined,
  data: Data | null | undefined,
  keywords?: { high_level?: string[]; low_level?: string[] } | null,
): Explanation {
  const records = data ?? trace?.data ?? null;
  const entities = join(
    trace?.entities,
    records?.entities,
    (t) => t.entity_name,
    (r: EntityData) => r.entity_name,
    (key, t, r, rank): EntityRow => ({ name: key, record: r, score: scoreOf(t), origin: originOf(t), rank }),
  ) as EntityRow[];
  const relations = join(
    trace?.relationships,
    records?.relationships,
    (t) => relationKey(t.src_id, t.tgt_id),
    (r: RelationData) => relationKey(r.src_id, r.tgt_id),
    (_key, t, r, rank): RelationRow => ({
      src: t?.src_id ?? r?.src_id ?? '',
      tgt: t?.tgt_id ?? r?.tgt_id ?? '',
      record: r,
      score: scoreOf(t),
      origin: originOf(t),
      rank,
    }),
  ) as RelationRow[];
  const chunks = join(
    trace?.chunks,
    records?.chunks,
    (t) => t.chunk_id,
    (r: ChunkData) => r.chunk_id,
    (key, t, r, rank): ChunkRow => ({ id: key, record: r, score: scoreOf(t), origin: originOf(t), rank }),
  ) as ChunkRow[];
  const kw = keywords ?? trace?.keywords ?? null;
  return {
    entities,
    relations,
    chunks,
    keywords: kw ? { high: kw.high_level ?? [], low: kw.low_level ?? [] } : null,
    traced: Boolean(trace),
  };
}

/** Whether the trace already carries the records (no /query/data call needed). */
export function hasRecords(trace: QueryTrace | null | undefined): boolean {
  const d = trace?.data;
  return Boolean(d && (d.entities || d.relationships || d.chunks));
}

/**
 * Width of a score bar in [0, 1]: scores already in [0, 1] (cosine similarities, rerank scores)
 * are shown as they are; other scales relative to the largest score of the list.
 */
export function scoreFraction(score: number | null, all: (number | null)[]): number {
  if (score === null) return 0;
  const known = all.filter((s): s is number => s !== null);
  const max = Math.max(0, ...known);
  const min = Math.min(0, ...known);
  if (min >= 0 && max <= 1) return Math.max(0, score);
  if (max <= 0) return 0;
  return Math.max(0, Math.min(1, score / max));
}

function origins(): Record<string, { label: string; help: string }> {
  return {
    vector: { label: t('retrieval.origin.vector'), help: t('retrieval.origin.vectorHelp') },
    graph: { label: t('retrieval.origin.graph'), help: t('retrieval.origin.graphHelp') },
    entity: { label: t('retrieval.origin.entity'), help: t('retrieval.origin.entityHelp') },
    relation: { label: t('retrieval.origin.relation'), help: t('retrieval.origin.relationHelp') },
  };
}

/** A short label for how a record came in: "vector" → "vector match", "a_b" → "a b". */
export function originLabel(origin: string | null): string {
  if (!origin) return t('retrieval.origin.unknown');
  return origins()[origin]?.label ?? origin.replace(/[_-]+/g, ' ');
}

/** A sentence explaining the origin (for a tooltip). */
export function originHelp(origin: string | null): string {
  if (!origin) return t('retrieval.origin.unknownHelp');
  return origins()[origin]?.help ?? t('retrieval.origin.otherHelp', { origin: originLabel(origin) });
}

/** What "Show in graph" highlights: the entities and the relations (as [source, target]). */
export function graphSelection(e: Explanation): { entities: string[]; relations: [string, string][] } {
  const names = new Set<string>(e.entities.map((r) => r.name));
  const relations: [string, string][] = e.relations.map((r) => [r.src, r.tgt]);
  return { entities: [...names], relations };
}
