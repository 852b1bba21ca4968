// What the pipeline panel shows, derived from GET /documents/pipeline_status.
import type { PipelineStatus } from '../../api/types';
import { t } from '../../i18n';
import { formatDuration, percent } from './format';

export interface PipelineView {
  working: boolean;
  state: 'idle' | 'busy' | 'scanning' | 'cancelling' | 'destructive';
  stateLabel: string;
  jobName: string;
  jobStart: string | null;
  elapsed: string | null;
  docs: number;
  batches: number;
  curBatch: number;
  /** Finished batches in % (while busy the current batch is not finished yet), null without batches. */
  batchPercent: number | null;
  latest: string;
  history: string[];
  /** History lines dropped by the server (from its "[Truncated history messages: n/total]" line). */
  truncated: number;
  requestPending: boolean;
}

const TRUNCATED = /^\[Truncated history messages: (\d+)\/(\d+)\]$/;

export function pipelineView(p: PipelineStatus | null, now: number = Date.now()): PipelineView {
  const history = [...(p?.history_messages ?? [])];
  let truncated = 0;
  const m = history[0]?.match(TRUNCATED);
  if (m) {
    truncated = Number(m[1]);
    history.shift();
  }
  const busy = Boolean(p?.busy);
  const scanning = Boolean(p?.scanning);
  const state: PipelineView['state'] = !p
    ? 'idle'
    : p.cancellation_requested && busy
      ? 'cancelling'
      : p.destructive_busy
        ? 'destructive'
        : busy
          ? 'busy'
          : scanning
            ? 'scanning'
            : 'idle';
  const labels: Record<PipelineView['state'], string> = {
    idle: t('docs.pipeline.idle'),
    busy: t('docs.pipeline.busy'),
    scanning: t('docs.pipeline.scanning'),
    cancelling: t('docs.pipeline.cancelling'),
    destructive: t('docs.pipeline.destructive'),
  };
  const start = p?.job_start ? Date.parse(p.job_start) : NaN;
  const batches = p?.batchs ?? 0;
  const curBatch = p?.cur_batch ?? 0;
  return {
    working: busy || scanning || (p?.pending_enqueues ?? 0) > 0,
    state,
    stateLabel: labels[state],
    jobName: p?.job_name || t('docs.pipeline.defaultJob'),
    jobStart: p?.job_start ?? null,
    // the clock may lag the job start by up to a second
    elapsed: busy && Number.isFinite(start) ? formatDuration(Math.max(0, now - start)) : null,
    docs: p?.docs ?? 0,
    batches,
    curBatch,
    batchPercent: percent(busy ? Math.max(0, curBatch - 1) : curBatch, batches),
    latest: p?.latest_message ?? '',
    history,
    truncated,
    requestPending: Boolean(p?.request_pending),
  };
}

/** The log follows new lines while the user is at (or near) its end; scrolling up stops that. */
export function isAtEnd(scrollTop: number, clientHeight: number, scrollHeight: number, slack = 24): boolean {
  return scrollHeight - (scrollTop + clientHeight) <= slack;
}

/** A history line's kind, for colouring the log (errors and warnings stand out). */
export function lineKind(line: string): 'error' | 'warning' | 'normal' {
  // "0 failed", "0 errors" are good news
  const text = line.replace(/\b0 (failed|failures?|errors?)\b/gi, '');
  if (/\b(error|failed|failure|exception|cancelled)\b/i.test(text)) return 'error';
  if (/\b(warn(ing)?|skipp(ed|ing)|retry(ing)?|busy)\b/i.test(text)) return 'warning';
  return 'normal';
}
