// The live pipeline status: GET /documents/pipeline_status about every second while a job runs,
// every five seconds while idle, not at all while the page or the browser tab is hidden.
import { useCallback, useState } from 'react';
import { describeError, isAbort } from '../../api/errors';
import type { PipelineStatus } from '../../api/types';
import { server } from '../../app/services';
import { pipelineInterval, pipelineWorking } from './polling';
import { usePolling } from './usePolling';

export interface PipelineState {
  status: PipelineStatus | null;
  error: string | null;
  working: boolean;
  /** Poll now (after an action that starts or stops work). */
  refresh: () => void;
}

/** `following`: poll at the busy pace even though no job was seen yet (just after an action). */
export function usePipeline(active: boolean, visible: boolean, following = false): PipelineState {
  const [status, setStatus] = useState<PipelineStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [kick, setKick] = useState(0);
  const working = pipelineWorking(status);
  usePolling(
    async (signal, current) => {
      try {
        const s = await server.pipelineStatus(signal);
        if (!current()) return true;
        setStatus(s);
        setError(null);
        return true;
      } catch (e) {
        if (isAbort(e) || !current()) return true;
        setError(describeError(e));
        return false;
      }
    },
    { enabled: active && visible, interval: pipelineInterval({ active, visible, busy: working || following }), kick },
  );
  const refresh = useCallback(() => setKick((k) => k + 1), []);
  return { status, error, working, refresh };
}
