// The rows of the documents table: POST /documents/paginated for the current query, refreshed
// while the pipeline works (or documents are still in progress) and on demand.
import { useCallback, useState } from 'react';
import { describeError, isAbort } from '../../api/errors';
import type { PaginatedDocs } from '../../api/types';
import { server } from '../../app/services';
import { tableInterval } from './polling';
import { inProgressCount } from './statusTabs';
import { paginatedRequest, type TableQuery } from './tableState';
import { usePolling } from './usePolling';

export interface DocumentsState {
  data: PaginatedDocs | null;
  /** The first answer has not arrived yet. */
  loading: boolean;
  /** A request is under way (also for refreshes, with data on screen). */
  fetching: boolean;
  error: string | null;
  reload: () => void;
}

export function useDocuments(query: TableQuery, active: boolean, visible: boolean, pipelineWorking: boolean): DocumentsState {
  const [data, setData] = useState<PaginatedDocs | null>(null);
  const [fetching, setFetching] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [kick, setKick] = useState(0);
  const inProgress = inProgressCount(data?.status_counts);
  usePolling(
    async (signal, current) => {
      setFetching(true);
      try {
        const answer = await server.paginated(paginatedRequest(query), signal);
        if (!current()) return true;
        setData(answer);
        setError(null);
        return true;
      } catch (e) {
        if (isAbort(e) || !current()) return true;
        setError(describeError(e));
        return false;
      } finally {
        if (current()) setFetching(false);
      }
    },
    {
      enabled: active && visible,
      interval: tableInterval({ active, visible, busy: pipelineWorking, inProgress }),
      kick: `${JSON.stringify(query)}|${kick}`,
    },
  );
  const reload = useCallback(() => setKick((k) => k + 1), []);
  return { data, loading: data === null && error === null, fetching, error, reload };
}
