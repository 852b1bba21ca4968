// How often the page asks the server for news: the pipeline status adapts to whether a job runs,
// and nothing is polled while the page or the browser tab is not visible.

export const PIPELINE_BUSY_MS = 1_000;
export const PIPELINE_IDLE_MS = 5_000;
/** The table follows a running pipeline at this pace (its answers are heavier than the status). */
export const TABLE_BUSY_MS = 2_500;
/** A track (upload or track dialog) is followed at this pace until it settles. */
export const TRACK_MS = 1_500;
/** After failures, wait longer each time, up to this. */
export const MAX_BACKOFF_MS = 30_000;

export interface PollContext {
  /** The page is the current tab (`active` prop). */
  active: boolean;
  /** `document.visibilityState === 'visible'`. */
  visible: boolean;
  /** The pipeline runs a job (or a scan or enqueue is under way). */
  busy: boolean;
  /** Consecutive failed polls. */
  failures?: number;
}

/** Delay before the next pipeline poll, or null to pause. */
export function pipelineInterval(ctx: PollContext): number | null {
  if (!ctx.active || !ctx.visible) return null;
  return backoff(ctx.busy ? PIPELINE_BUSY_MS : PIPELINE_IDLE_MS, ctx.failures ?? 0);
}

/** Delay before the next automatic table refresh, or null when there is nothing to follow. */
export function tableInterval(ctx: PollContext & { inProgress: number }): number | null {
  if (!ctx.active || !ctx.visible) return null;
  if (!ctx.busy && ctx.inProgress === 0) return null;
  return backoff(TABLE_BUSY_MS, ctx.failures ?? 0);
}

/** Doubles the delay for each consecutive failure, capped. */
export function backoff(base: number, failures: number): number {
  if (failures <= 0) return base;
  return Math.min(MAX_BACKOFF_MS, base * 2 ** Math.min(failures, 10));
}

/** Whether the pipeline status means work is under way. */
export function pipelineWorking(p: { busy?: boolean; scanning?: boolean; pending_enqueues?: number; request_pending?: boolean } | null | undefined): boolean {
  if (!p) return false;
  return Boolean(p.busy || p.scanning || (p.pending_enqueues ?? 0) > 0);
}
