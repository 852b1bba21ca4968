// Runs the upload queue: starts queued files (at most three at a time) with server.upload and
// its progress, classifies refusals, then follows each accepted file's track until its document
// is processed or failed. The queue outlives the dialog: closing it does not stop the uploads.
import { useCallback, useEffect, useReducer, useRef } from 'react';
import { isAbort } from '../../api/errors';
import { server } from '../../app/services';
import { TRACK_MS } from './polling';
import {
  classifyUploadError,
  emptyQueue,
  nextToStart,
  summarize,
  tracksToFollow,
  uploadReducer,
  type QueueSummary,
  type UploadState,
} from './uploadQueue';
import { usePolling } from './usePolling';

export interface Uploads {
  state: UploadState;
  summary: QueueSummary;
  add: (files: File[]) => void;
  remove: (id: number) => void;
  retry: (id: number) => void;
  clearFinished: () => void;
}

export function useUploads(options: {
  active: boolean;
  visible: boolean;
  /** A file was stored and enqueued (refresh the table and the pipeline). */
  onAccepted: () => void;
  /** A followed document reached processed or failed. */
  onSettled: () => void;
}): Uploads {
  const [state, dispatch] = useReducer(uploadReducer<File>, undefined, () => emptyQueue<File>());
  const running = useRef(new Map<number, AbortController>());
  const callbacks = useRef(options);
  callbacks.current = options;

  useEffect(() => {
    for (const id of nextToStart(state)) {
      const item = state.items.find((i) => i.id === id);
      if (!item || running.current.has(id)) continue;
      const controller = new AbortController();
      running.current.set(id, controller);
      dispatch({ type: 'start', id });
      server
        .upload(item.file, (loaded, total) => dispatch({ type: 'progress', id, loaded, total }), controller.signal)
        .then((answer) => {
          dispatch({ type: 'accepted', id, trackId: answer?.track_id ?? '', message: answer?.message ?? '' });
          callbacks.current.onAccepted();
        })
        .catch((e: unknown) => {
          if (isAbort(e) && controller.signal.aborted && !running.current.has(id)) return; // removed
          const { reason, message } = classifyUploadError(e);
          dispatch({ type: 'rejected', id, reason, message });
        })
        .finally(() => running.current.delete(id));
    }
  }, [state]);

  // stop the uploads when the page goes away (workspace switch, logout)
  useEffect(() => {
    const map = running.current;
    return () => {
      for (const c of map.values()) c.abort();
      map.clear();
    };
  }, []);

  const follow = tracksToFollow(state);
  const followKey = follow.map((f) => `${f.id}:${f.trackId}`).join(',');
  usePolling(
    async () => {
      const byTrack = new Map<string, number[]>();
      for (const f of follow) {
        if (!f.trackId) continue;
        byTrack.set(f.trackId, [...(byTrack.get(f.trackId) ?? []), f.id]);
      }
      let ok = true;
      let settled = false;
      await Promise.all(
        [...byTrack].map(async ([trackId, ids]) => {
          try {
            const track = await server.trackStatus(trackId);
            const done = (track.documents ?? []).length > 0 && track.documents.every((d) => d.status === 'processed' || d.status === 'failed' || d.status === 'preprocessed');
            if (done) settled = true;
            for (const id of ids) dispatch({ type: 'tracked', id, track });
          } catch {
            ok = false;
          }
        }),
      );
      if (settled) callbacks.current.onSettled();
      return ok;
    },
    { enabled: options.active && options.visible && followKey !== '', interval: TRACK_MS, kick: followKey },
  );

  const remove = useCallback((id: number) => {
    const c = running.current.get(id);
    running.current.delete(id);
    c?.abort();
    dispatch({ type: 'remove', id });
  }, []);
  const add = useCallback((files: File[]) => {
    dispatch({ type: 'add', files: files.map((file) => ({ name: file.name, size: file.size, file })) });
  }, []);
  const retry = useCallback((id: number) => dispatch({ type: 'retry', id }), []);
  const clearFinished = useCallback(() => dispatch({ type: 'clearFinished' }), []);

  return { state, summary: summarize(state), add, remove, retry, clearFinished };
}
