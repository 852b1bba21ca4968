// The status filter tabs above the table: one per status plus "All", each with its count from the
// `status_counts` of the last paginated answer.
import { DOC_STATUSES, type DocStatus, type StatusCounts } from '../../api/types';
import { t } from '../../i18n';

export type StatusFilter = DocStatus | 'all';

/** "All", then the statuses in pipeline order. */
export const STATUS_FILTERS: StatusFilter[] = ['all', ...DOC_STATUSES];

/** The statuses' names in the UI's language. */
export function statusLabels(): Record<StatusFilter, string> {
  return {
    all: t('docs.status.all'),
    pending: t('docs.status.pending'),
    parsing: t('docs.status.parsing'),
    analyzing: t('docs.status.analyzing'),
    processing: t('docs.status.processing'),
    preprocessed: t('docs.status.preprocessed'),
    processed: t('docs.status.processed'),
    failed: t('docs.status.failed'),
  };
}

/** Statuses of documents the pipeline has not finished with. */
export const IN_PROGRESS: DocStatus[] = ['pending', 'parsing', 'analyzing', 'processing'];

export function isInProgress(status: string | null | undefined): boolean {
  return (IN_PROGRESS as string[]).includes(status ?? '');
}

export interface StatusTab {
  filter: StatusFilter;
  label: string;
  /** null before the first answer. */
  count: number | null;
}

/** The "All" count: the server's, else the sum of the statuses. */
export function totalOf(counts: StatusCounts | null | undefined): number {
  if (!counts) return 0;
  if (typeof counts.all === 'number') return counts.all;
  let sum = 0;
  for (const f of STATUS_FILTERS) {
    if (f !== 'all') sum += counts[f] ?? 0;
  }
  return sum;
}

/** The tabs with their counts (every status, even at 0, so the user sees the whole picture). */
export function statusTabs(counts: StatusCounts | null | undefined): StatusTab[] {
  return STATUS_FILTERS.map((filter) => ({
    filter,
    label: statusLabels()[filter],
    count: counts ? (filter === 'all' ? totalOf(counts) : (counts[filter] ?? 0)) : null,
  }));
}

/** The request field for a tab: `status_filter` for one status, nothing for "All". */
export function filterField(filter: StatusFilter): { status_filter?: DocStatus } {
  return filter === 'all' ? {} : { status_filter: filter };
}

/** Documents the pipeline still has to finish (pending, parsing, analyzing, processing). */
export function inProgressCount(counts: StatusCounts | null | undefined): number {
  if (!counts) return 0;
  return IN_PROGRESS.reduce((n, s) => n + (counts[s] ?? 0), 0);
}
