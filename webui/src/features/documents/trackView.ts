// The track status dialog: a track's documents and their status counts.
import type { DocStatus, TrackStatus } from '../../api/types';
import { t } from '../../i18n';
import { IN_PROGRESS, statusLabels } from './statusTabs';

/** Nothing of the track is still pending or being processed (or the track is unknown). */
export function trackSettled(track: TrackStatus | null): boolean {
  if (!track) return false;
  if ((track.documents ?? []).length === 0) return true;
  const summary = summaryOf(track);
  return IN_PROGRESS.every((s) => (summary[s] ?? 0) === 0);
}

/** The status counts: the server's summary, else counted from the documents. */
export function summaryOf(track: TrackStatus): Partial<Record<DocStatus, number>> {
  if (track.status_summary && Object.keys(track.status_summary).length > 0) return track.status_summary;
  const out: Partial<Record<DocStatus, number>> = {};
  for (const d of track.documents ?? []) out[d.status] = (out[d.status] ?? 0) + 1;
  return out;
}

/** "2 processed · 1 failed", in pipeline order. */
export function summaryText(track: TrackStatus): string {
  const summary = summaryOf(track);
  const order: DocStatus[] = ['pending', 'parsing', 'analyzing', 'processing', 'preprocessed', 'processed', 'failed'];
  const parts = order
    .filter((s) => (summary[s] ?? 0) > 0)
    .map((s) => t('docs.trackSummaryPart', { count: summary[s], status: statusLabels()[s].toLowerCase() }));
  return parts.length > 0 ? parts.join(' · ') : t('docs.noDocuments');
}
