// The upload list of the upload dialog as a state machine, one item per file:
//
//   queued → uploading(progress) → accepted(track id, document status…) → processed | failed
//                               ↘ rejected(reason)          (retry → queued)
//
// "accepted" means the server stored the file and enqueued it; the item then follows
// GET /documents/track_status/{id} until its document is processed or failed.
import { ApiError, NetworkError, isAbort } from '../../api/errors';
import { t } from '../../i18n';
import type { DocStatus, DocStatusResponse, TrackStatus } from '../../api/types';
import { isInProgress } from './statusTabs';

/** At most this many uploads run at the same time. */
export const MAX_PARALLEL_UPLOADS = 3;

export type RejectReason =
  | 'duplicate'
  | 'too-large'
  | 'unsupported'
  | 'unparsable'
  | 'busy'
  | 'auth'
  | 'network'
  | 'server'
  | 'cancelled';

export type UploadPhase =
  | { kind: 'queued' }
  | { kind: 'uploading'; loaded: number; total: number }
  /** Stored and enqueued; `status` is the document's status once the track answers. */
  | { kind: 'accepted'; trackId: string; message: string; status: DocStatus | null }
  | { kind: 'processed'; trackId: string; chunks: number | null }
  | { kind: 'failed'; trackId: string; error: string; duplicate: boolean }
  | { kind: 'rejected'; reason: RejectReason; message: string };

export interface UploadItem<F = File> {
  id: number;
  name: string;
  size: number;
  file: F;
  phase: UploadPhase;
}

export interface UploadState<F = File> {
  items: UploadItem<F>[];
  nextId: number;
}

export function emptyQueue<F = File>(): UploadState<F> {
  return { items: [], nextId: 1 };
}

export type UploadAction<F = File> =
  | { type: 'add'; files: { name: string; size: number; file: F }[] }
  | { type: 'start'; id: number }
  | { type: 'progress'; id: number; loaded: number; total: number }
  | { type: 'accepted'; id: number; trackId: string; message: string }
  | { type: 'tracked'; id: number; track: TrackStatus }
  | { type: 'rejected'; id: number; reason: RejectReason; message: string }
  | { type: 'retry'; id: number }
  | { type: 'remove'; id: number }
  | { type: 'clearFinished' };

function update<F>(state: UploadState<F>, id: number, f: (item: UploadItem<F>) => UploadItem<F>): UploadState<F> {
  let changed = false;
  const items = state.items.map((item) => {
    if (item.id !== id) return item;
    const next = f(item);
    if (next !== item) changed = true;
    return next;
  });
  return changed ? { ...state, items } : state;
}

export function uploadReducer<F>(state: UploadState<F>, action: UploadAction<F>): UploadState<F> {
  switch (action.type) {
    case 'add': {
      if (action.files.length === 0) return state;
      let nextId = state.nextId;
      const added = action.files.map((f) => ({
        id: nextId++,
        name: f.name,
        size: f.size,
        file: f.file,
        phase: { kind: 'queued' } as UploadPhase,
      }));
      return { items: [...state.items, ...added], nextId };
    }
    case 'start':
      return update(state, action.id, (item) =>
        item.phase.kind === 'queued' ? { ...item, phase: { kind: 'uploading', loaded: 0, total: item.size } } : item,
      );
    case 'progress':
      return update(state, action.id, (item) =>
        item.phase.kind === 'uploading'
          ? { ...item, phase: { kind: 'uploading', loaded: action.loaded, total: action.total || item.size } }
          : item,
      );
    case 'accepted':
      return update(state, action.id, (item) =>
        item.phase.kind === 'uploading'
          ? { ...item, phase: { kind: 'accepted', trackId: action.trackId, message: action.message, status: null } }
          : item,
      );
    case 'tracked':
      return update(state, action.id, (item) => {
        if (item.phase.kind !== 'accepted' || item.phase.trackId !== action.track.track_id) return item;
        const phase = trackedPhase(item.phase, action.track);
        return samePhase(phase, item.phase) ? item : { ...item, phase };
      });
    case 'rejected':
      return update(state, action.id, (item) =>
        item.phase.kind === 'uploading' || item.phase.kind === 'queued'
          ? { ...item, phase: { kind: 'rejected', reason: action.reason, message: action.message } }
          : item,
      );
    case 'retry':
      return update(state, action.id, (item) =>
        item.phase.kind === 'rejected' ? { ...item, phase: { kind: 'queued' } } : item,
      );
    case 'remove': {
      const items = state.items.filter((i) => i.id !== action.id);
      return items.length === state.items.length ? state : { ...state, items };
    }
    case 'clearFinished': {
      const items = state.items.filter((i) => !isFinished(i.phase));
      return items.length === state.items.length ? state : { ...state, items };
    }
  }
}

function samePhase(a: UploadPhase, b: UploadPhase): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Where an accepted upload stands according to its track. */
export function trackedPhase(
  current: Extract<UploadPhase, { kind: 'accepted' }>,
  track: TrackStatus,
): UploadPhase {
  const docs = track.documents ?? [];
  if (docs.length === 0) return current;
  const failed = docs.find((d) => d.status === 'failed');
  if (failed) {
    return {
      kind: 'failed',
      trackId: current.trackId,
      error: failed.error_msg || t('docs.upload.docFailed'),
      duplicate: isDuplicate(failed),
    };
  }
  const pending = docs.find((d) => isInProgress(d.status));
  if (pending) return { ...current, status: pending.status };
  if (docs.every((d) => d.status === 'processed' || d.status === 'preprocessed')) {
    const chunks = docs.reduce<number | null>(
      (n, d) => (typeof d.chunks_count === 'number' ? (n ?? 0) + d.chunks_count : n),
      null,
    );
    return { kind: 'processed', trackId: current.trackId, chunks };
  }
  return current;
}

export function isDuplicate(doc: Pick<DocStatusResponse, 'metadata'>): boolean {
  return doc.metadata?.is_duplicate === true;
}

/** The upload itself is over (successfully stored or refused); the document may still be processing. */
export function isSettled(phase: UploadPhase): boolean {
  return phase.kind !== 'queued' && phase.kind !== 'uploading';
}

/** Nothing more will happen to this item. */
export function isFinished(phase: UploadPhase): boolean {
  return phase.kind === 'processed' || phase.kind === 'failed' || phase.kind === 'rejected';
}

/** The items to start now, keeping at most `limit` uploads running. */
export function nextToStart<F>(state: UploadState<F>, limit = MAX_PARALLEL_UPLOADS): number[] {
  const running = state.items.filter((i) => i.phase.kind === 'uploading').length;
  const free = Math.max(0, limit - running);
  return state.items
    .filter((i) => i.phase.kind === 'queued')
    .slice(0, free)
    .map((i) => i.id);
}

/** Track ids still to follow (accepted, not yet processed or failed). */
export function tracksToFollow<F>(state: UploadState<F>): { id: number; trackId: string }[] {
  return state.items.flatMap((i) => (i.phase.kind === 'accepted' ? [{ id: i.id, trackId: i.phase.trackId }] : []));
}

export interface QueueSummary {
  total: number;
  queued: number;
  uploading: number;
  processing: number;
  processed: number;
  failed: number;
  rejected: number;
  /** Overall upload progress in bytes of the files not refused. */
  loaded: number;
  bytes: number;
}

export function summarize<F>(state: UploadState<F>): QueueSummary {
  const s: QueueSummary = {
    total: state.items.length,
    queued: 0,
    uploading: 0,
    processing: 0,
    processed: 0,
    failed: 0,
    rejected: 0,
    loaded: 0,
    bytes: 0,
  };
  for (const item of state.items) {
    const p = item.phase;
    if (p.kind === 'rejected') {
      s.rejected++;
      continue;
    }
    s.bytes += item.size;
    if (p.kind === 'queued') s.queued++;
    else if (p.kind === 'uploading') {
      s.uploading++;
      s.loaded += Math.min(item.size, p.loaded);
    } else {
      s.loaded += item.size;
      if (p.kind === 'accepted') s.processing++;
      else if (p.kind === 'processed') s.processed++;
      else s.failed++;
    }
  }
  return s;
}

/** Why an upload was refused, from the error its request threw. */
export function classifyUploadError(e: unknown): { reason: RejectReason; message: string } {
  if (isAbort(e)) return { reason: 'cancelled', message: t('docs.upload.cancelled') };
  if (e instanceof NetworkError) return { reason: 'network', message: e.message };
  if (e instanceof ApiError) {
    const msg = e.message;
    switch (e.status) {
      case 409:
        // the name is taken (stored document or file in the input folder) — else a job blocks uploads
        if (/already (contains|exists)|duplicate/i.test(msg)) return { reason: 'duplicate', message: msg };
        return { reason: 'busy', message: msg };
      case 413:
        return { reason: 'too-large', message: msg };
      case 415:
        return { reason: 'unsupported', message: msg };
      case 400:
      case 422:
        if (/unsupported file type|not a usable file name/i.test(msg)) return { reason: 'unsupported', message: msg };
        return { reason: 'unparsable', message: msg };
      case 401:
      case 403:
        return { reason: 'auth', message: msg };
      default:
        return { reason: 'server', message: msg };
    }
  }
  return { reason: 'network', message: e instanceof Error ? e.message : String(e) };
}

/** The refusals' names in the UI's language. */
export function rejectLabels(): Record<RejectReason, string> {
  return {
    duplicate: t('docs.reject.duplicate'),
    'too-large': t('docs.reject.tooLarge'),
    unsupported: t('docs.reject.unsupported'),
    unparsable: t('docs.reject.unparsable'),
    busy: t('docs.reject.busy'),
    auth: t('docs.reject.auth'),
    network: t('docs.reject.network'),
    server: t('docs.reject.server'),
    cancelled: t('docs.reject.cancelled'),
  };
}

/** Refusals worth trying again as they are (the others need a different file or a deletion first). */
export function isRetryable(reason: RejectReason): boolean {
  return reason === 'busy' || reason === 'network' || reason === 'server' || reason === 'cancelled';
}
