import { describe, expect, it } from 'vitest';
import { ApiError, NetworkError } from '../../api/errors';
import type { DocStatusResponse, TrackStatus } from '../../api/types';
import {
  classifyUploadError,
  emptyQueue,
  isFinished,
  isRetryable,
  nextToStart,
  summarize,
  tracksToFollow,
  uploadReducer,
  type UploadAction,
  type UploadState,
} from './uploadQueue';

type S = UploadState<string>;
const run = (state: S, ...actions: UploadAction<string>[]): S => actions.reduce(uploadReducer, state);
const files = (...names: string[]) => names.map((name) => ({ name, size: 100, file: name }));

function doc(over: Partial<DocStatusResponse>): DocStatusResponse {
  return {
    id: 'doc-1',
    content_summary: '',
    content_length: 10,
    status: 'pending',
    created_at: '',
    updated_at: '',
    file_path: 'a.md',
    ...over,
  };
}

function track(trackId: string, docs: Partial<DocStatusResponse>[]): TrackStatus {
  const documents = docs.map((d) => doc({ track_id: trackId, ...d }));
  const status_summary: TrackStatus['status_summary'] = {};
  for (const d of documents) status_summary[d.status] = (status_summary[d.status] ?? 0) + 1;
  return { track_id: trackId, documents, total_count: documents.length, status_summary };
}

describe('upload queue', () => {
  it('adds files as queued with increasing ids', () => {
    const s = run(emptyQueue(), { type: 'add', files: files('a.md', 'b.docx') }, { type: 'add', files: files('c.txt') });
    expect(s.items.map((i) => [i.id, i.name, i.phase.kind])).toEqual([
      [1, 'a.md', 'queued'],
      [2, 'b.docx', 'queued'],
      [3, 'c.txt', 'queued'],
    ]);
    expect(s.nextId).toBe(4);
  });

  it('starts at most three uploads at a time, in order', () => {
    let s = run(emptyQueue(), { type: 'add', files: files('1', '2', '3', '4', '5') });
    expect(nextToStart(s)).toEqual([1, 2, 3]);
    s = run(s, { type: 'start', id: 1 }, { type: 'start', id: 2 });
    expect(nextToStart(s)).toEqual([3]);
    s = run(s, { type: 'start', id: 3 });
    expect(nextToStart(s)).toEqual([]);
    s = run(s, { type: 'rejected', id: 2, reason: 'duplicate', message: 'exists' });
    expect(nextToStart(s)).toEqual([4]);
  });

  it('goes queued → uploading(progress) → accepted → processed', () => {
    let s = run(emptyQueue(), { type: 'add', files: files('a.md') }, { type: 'start', id: 1 });
    expect(s.items[0]?.phase).toEqual({ kind: 'uploading', loaded: 0, total: 100 });
    s = run(s, { type: 'progress', id: 1, loaded: 40, total: 100 });
    expect(s.items[0]?.phase).toEqual({ kind: 'uploading', loaded: 40, total: 100 });
    s = run(s, { type: 'accepted', id: 1, trackId: 'upload_1', message: 'ok' });
    expect(s.items[0]?.phase).toEqual({ kind: 'accepted', trackId: 'upload_1', message: 'ok', status: null });
    expect(tracksToFollow(s)).toEqual([{ id: 1, trackId: 'upload_1' }]);

    s = run(s, { type: 'tracked', id: 1, track: track('upload_1', [{ status: 'processing' }]) });
    expect(s.items[0]?.phase).toMatchObject({ kind: 'accepted', status: 'processing' });

    s = run(s, { type: 'tracked', id: 1, track: track('upload_1', [{ status: 'processed', chunks_count: 3 }]) });
    expect(s.items[0]?.phase).toEqual({ kind: 'processed', trackId: 'upload_1', chunks: 3 });
    expect(tracksToFollow(s)).toEqual([]);
    expect(isFinished(s.items[0]!.phase)).toBe(true);
  });

  it('keeps following while the track has no document yet, and ignores other tracks', () => {
    let s = run(
      emptyQueue(),
      { type: 'add', files: files('a.md') },
      { type: 'start', id: 1 },
      { type: 'accepted', id: 1, trackId: 't1', message: '' },
    );
    const before = s;
    s = run(s, { type: 'tracked', id: 1, track: track('t1', []) });
    expect(s).toBe(before);
    s = run(s, { type: 'tracked', id: 1, track: track('other', [{ status: 'failed' }]) });
    expect(s).toBe(before);
  });

  it('reports a processing failure with its error, and content duplicates as such', () => {
    const base = run(
      emptyQueue(),
      { type: 'add', files: files('a.md') },
      { type: 'start', id: 1 },
      { type: 'accepted', id: 1, trackId: 't1', message: '' },
    );
    const failed = run(base, { type: 'tracked', id: 1, track: track('t1', [{ status: 'failed', error_msg: 'LLM timeout' }]) });
    expect(failed.items[0]?.phase).toEqual({ kind: 'failed', trackId: 't1', error: 'LLM timeout', duplicate: false });
    const dup = run(base, {
      type: 'tracked',
      id: 1,
      track: track('t1', [
        { status: 'failed', error_msg: 'Content already exists', metadata: { is_duplicate: true, original_doc_id: 'doc-0' } },
      ]),
    });
    expect(dup.items[0]?.phase).toMatchObject({ kind: 'failed', duplicate: true, error: 'Content already exists' });
  });

  it('rejects, retries and removes', () => {
    let s = run(
      emptyQueue(),
      { type: 'add', files: files('a.md', 'b.md') },
      { type: 'start', id: 1 },
      { type: 'rejected', id: 1, reason: 'network', message: 'lost' },
    );
    expect(s.items[0]?.phase).toEqual({ kind: 'rejected', reason: 'network', message: 'lost' });
    s = run(s, { type: 'retry', id: 1 });
    expect(s.items[0]?.phase.kind).toBe('queued');
    s = run(s, { type: 'remove', id: 2 });
    expect(s.items.map((i) => i.name)).toEqual(['a.md']);
  });

  it('ignores transitions that do not fit the current phase', () => {
    const s = run(emptyQueue(), { type: 'add', files: files('a.md') });
    expect(run(s, { type: 'progress', id: 1, loaded: 5, total: 100 })).toBe(s);
    expect(run(s, { type: 'accepted', id: 1, trackId: 't', message: '' })).toBe(s);
    expect(run(s, { type: 'retry', id: 1 })).toBe(s);
    expect(run(s, { type: 'remove', id: 42 })).toBe(s);
    const done = run(s, { type: 'start', id: 1 }, { type: 'accepted', id: 1, trackId: 't', message: '' });
    expect(run(done, { type: 'rejected', id: 1, reason: 'network', message: '' })).toBe(done);
  });

  it('clears finished items only', () => {
    const s = run(
      emptyQueue(),
      { type: 'add', files: files('a', 'b', 'c') },
      { type: 'start', id: 1 },
      { type: 'rejected', id: 1, reason: 'duplicate', message: '' },
      { type: 'start', id: 2 },
      { type: 'accepted', id: 2, trackId: 't2', message: '' },
      { type: 'clearFinished' },
    );
    expect(s.items.map((i) => i.name)).toEqual(['b', 'c']);
  });

  it('summarises the queue', () => {
    const s = run(
      emptyQueue(),
      { type: 'add', files: files('a', 'b', 'c', 'd') },
      { type: 'start', id: 1 },
      { type: 'progress', id: 1, loaded: 50, total: 100 },
      { type: 'start', id: 2 },
      { type: 'accepted', id: 2, trackId: 't', message: '' },
      { type: 'start', id: 3 },
      { type: 'rejected', id: 3, reason: 'too-large', message: '' },
    );
    expect(summarize(s)).toEqual({
      total: 4,
      queued: 1,
      uploading: 1,
      processing: 1,
      processed: 0,
      failed: 0,
      rejected: 1,
      loaded: 150,
      bytes: 300,
    });
  });
});

describe('upload error classification', () => {
  const api = (status: number, message: string) => new ApiError(status, message, { detail: message });

  it('tells duplicates from a busy server on 409', () => {
    expect(classifyUploadError(api(409, "Document storage already contains 'a.md' (Status: processed)")).reason).toBe(
      'duplicate',
    );
    expect(classifyUploadError(api(409, "File 'a.md' already exists in the input directory")).reason).toBe('duplicate');
    expect(classifyUploadError(api(409, 'a deletion or clearing job is running; retry when it has finished')).reason).toBe(
      'busy',
    );
  });

  it('maps 413 to too large and 400 to unsupported or unreadable, keeping the server message', () => {
    expect(classifyUploadError(api(413, 'file too large: the limit is 10 bytes'))).toEqual({
      reason: 'too-large',
      message: 'file too large: the limit is 10 bytes',
    });
    expect(classifyUploadError(api(400, "Unsupported file type: 'x.exe'. Supported types: txt")).reason).toBe('unsupported');
    expect(classifyUploadError(api(400, "'a.docx': not a zip archive"))).toEqual({
      reason: 'unparsable',
      message: "'a.docx': not a zip archive",
    });
  });

  it('classifies network, auth, server errors and cancellations', () => {
    expect(classifyUploadError(new NetworkError('connection lost')).reason).toBe('network');
    expect(classifyUploadError(api(401, 'Token expired')).reason).toBe('auth');
    expect(classifyUploadError(api(500, 'disk full'))).toEqual({ reason: 'server', message: 'disk full' });
    expect(classifyUploadError(new DOMException('x', 'AbortError')).reason).toBe('cancelled');
    expect(classifyUploadError('weird').reason).toBe('network');
  });

  it('says which refusals are worth retrying as is', () => {
    expect(isRetryable('busy')).toBe(true);
    expect(isRetryable('network')).toBe(true);
    expect(isRetryable('duplicate')).toBe(false);
    expect(isRetryable('unsupported')).toBe(false);
  });
});
