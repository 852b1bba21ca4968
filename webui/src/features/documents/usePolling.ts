// Runs a task now and then again every `interval` ms while `enabled`; runs it again at once when
// `kick` changes. A failed run (the task returns false) delays the next one (backoff). A run still
// in flight when the schedule changes is aborted, so answers never arrive out of order.
import { useEffect, useRef, useState } from 'react';
import { backoff } from './polling';

export function usePolling(
  task: (signal: AbortSignal) => Promise<boolean>,
  options: { enabled: boolean; interval: number | null; kick?: unknown },
): void {
  const taskRef = useRef(task);
  taskRef.current = task;
  const failures = useRef(0);
  const { enabled, interval, kick } = options;
  useEffect(() => {
    if (!enabled) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let controller: AbortController | null = null;
    const tick = async () => {
      controller = new AbortController();
      const ok = await taskRef.current(controller.signal).catch(() => false);
      if (stopped) return;
      failures.current = ok ? 0 : failures.current + 1;
      if (interval !== null) timer = setTimeout(tick, backoff(interval, failures.current));
    };
    void tick();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      controller?.abort();
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
