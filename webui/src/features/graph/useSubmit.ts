// What every edit dialog of the graph page does when it sends: busy while the request runs, the
// error shown in the dialog (a 409 is the server refusing, e.g. while the pipeline is busy).
import { useCallback, useState } from 'react';
import { ApiError, describeError } from '../../api/errors';

/** The message of a failed edit: the server's own words, marked as a refusal for a 409. */
export function editErrorText(e: unknown): string {
  return e instanceof ApiError && e.isConflict ? `Refused: ${e.message}` : describeError(e);
}

export interface Submit {
  busy: boolean;
  error: string | null;
  setError: (error: string | null) => void;
  /** Runs `work` (busy meanwhile); what it throws is shown as the dialog's error. */
  run: (work: () => Promise<void>) => Promise<void>;
  /** Forget the error and the busy state (the dialog opens again). */
  reset: () => void;
}

export function useSubmit(): Submit {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async (work: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (e) {
      setError(editErrorText(e));
    } finally {
      setBusy(false);
    }
  }, []);
  const reset = useCallback(() => {
    setBusy(false);
    setError(null);
  }, []);
  return { busy, error, setError, run, reset };
}
