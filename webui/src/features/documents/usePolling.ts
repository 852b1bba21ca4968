// Runs a task now and then again every `interval` ms while `enabled`; runs it again at once when
// `kick` changes. A failed run (the task returns false) delays the next one (backoff).
//
// When the schedule changes while a run is in flight, that run is not aborted (a cancelled
// request is noise in the network log) but its answer is ignored: the task checks `current()`
// after awaiting. Requests still running when the component goes away are aborted.
import { useEffect, useRef, useState } from 'react';
import { backoff } from './polling';

export type PollTask = (signal: AbortSignal, current: () => boolean) => Promise<boolean>;

export function usePolling(task: PollTask, options: { enabled: boolean; interval: number | null; kick?: unknown }): void {
  const taskRef = useRef(task);
  taskRef.current = task;
  const failures = useRef(0);
  const unmount = useRef<AbortController | null>(null);
  useEffect(() => {
    const c = new AbortController();
    unmount.current = c;
    return () => c.abort();
  }, []);
  const { enabled, interval, kick } = options;
  useEffect(() => {
    if (!enabled) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const current = () => !stopped;
    const tick = async () => {
      const signal = unmount.current?.signal ?? new AbortController().signal;
      const ok = await taskRef.current(signal, current).catch(() => false);
      if (stopped) return;
      failures.current = ok ? 0 : failures.current + 1;
      if (interval !== null) timer = setTimeout(tick, backoff(interval, failures.current));
    };
    void tick();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, [enabled, interval, kick]);
}

/** `document.visibilityState === 'visible'`, kept up to date. */
export function usePageVisible(): boolean {
  const [visible, setVisible] = useState(() => typeof document === 'undefined' || document.visibilityState !== 'hidden');
  useEffect(() => {
    const onChange = () => setVisible(document.visibilityState !== 'hidden');
    document.addEventListener('visibilitychange', onChange);
    return () => document.removeEventListener('visibilitychange', onChange);
  }, []);
  return visible;
}
