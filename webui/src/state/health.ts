// /health, polled every 15 s (faster while the pipeline runs): the status light in the header,
// the status dialog, and "pipeline busy" for the graph editor (edits are refused while busy).
import type { Health } from '../api/types';
import { createStore } from '../lib/store';

export interface HealthState {
  health: Health | null;
  error: string | null;
  checkedAt: number | null;
}

export const health = createStore<HealthState>({ health: null, error: null, checkedAt: null });

export function pipelineBusy(h: HealthState): boolean {
  return Boolean(h.health?.pipeline_busy);
}

export const HEALTH_INTERVAL_MS = 15_000;
export const HEALTH_INTERVAL_BUSY_MS = 3_000;

export interface PollHealthOptions {
  /** Whether the browser tab is visible (default: `document.visibilityState`). */
  visible?: () => boolean;
  /** Calls `listener` when the visibility changes; returns the unsubscribe (default: `visibilitychange`). */
  onVisibilityChange?: (listener: () => void) => () => void;
}

function documentVisible(): boolean {
  return typeof document === 'undefined' || document.visibilityState !== 'hidden';
}

function onDocumentVisibility(listener: () => void): () => void {
  if (typeof document === 'undefined') return () => undefined;
  document.addEventListener('visibilitychange', listener);
  return () => document.removeEventListener('visibilitychange', listener);
}

/**
 * Polls `fetchHealth` until the returned function is called: every HEALTH_INTERVAL_MS, every
 * HEALTH_INTERVAL_BUSY_MS while the pipeline is busy, at once when `healthRefresh` changes (an
 * action started work) or the tab becomes visible again, and not at all while it is hidden.
 */
export function pollHealth(fetchHealth: () => Promise<Health>, options: PollHealthOptions = {}): () => void {
  const visible = options.visible ?? documentVisible;
  const onVisibility = options.onVisibilityChange ?? onDocumentVisibility;
  let stopped = false;
  let running = false;
  let again = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const clear = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  const tick = async () => {
    clear();
    if (stopped || !visible()) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      const h = await fetchHealth();
      if (!stopped) health.set({ health: h, error: null, checkedAt: Date.now() });
    } catch (e) {
      if (!stopped) health.set((s) => ({ ...s, error: e instanceof Error ? e.message : String(e), checkedAt: Date.now() }));
    }
    running = false;
    if (stopped) return;
    if (again) {
      again = false;
      void tick();
      return;
    }
    if (!visible()) return;
    const busy = pipelineBusy(health.get());
    timer = setTimeout(() => void tick(), busy ? HEALTH_INTERVAL_BUSY_MS : HEALTH_INTERVAL_MS);
  };
  const unsubscribeRefresh = healthRefresh.subscribe(() => void tick());
  const unsubscribeVisibility = onVisibility(() => {
    if (visible()) void tick();
    else clear();
  });
  void tick();
  return () => {
    stopped = true;
    clear();
    unsubscribeRefresh();
    unsubscribeVisibility();
  };
}

/** Ask for a fresh /health now (after an action that changes the pipeline state). */
export const healthRefresh = createStore(0);
