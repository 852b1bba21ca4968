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

/** Polls `fetchHealth` until the returned function is called. */
export function pollHealth(fetchHealth: () => Promise<Health>): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = async () => {
    try {
      const h = await fetchHealth();
      health.set({ health: h, error: null, checkedAt: Date.now() });
    } catch (e) {
      health.set((s) => ({ ...s, error: e instanceof Error ? e.message : String(e), checkedAt: Date.now() }));
    }
    if (!stopped) {
      const busy = pipelineBusy(health.get());
      timer = setTimeout(tick, busy ? HEALTH_INTERVAL_BUSY_MS : HEALTH_INTERVAL_MS);
    }
  };
  void tick();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}

/** Ask for a fresh /health now (after an action that changes the pipeline state). */
export const healthRefresh = createStore(0);
