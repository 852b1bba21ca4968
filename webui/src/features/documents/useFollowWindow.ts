// After an action (upload, delete, scan…), the server's job may start and finish between two
// polls. For a few seconds the page polls as if the pipeline were busy, so the table shows the
// outcome even when the job was too quick to be seen running.
import { useCallback, useEffect, useRef, useState } from 'react';

export const FOLLOW_MS = 8_000;

export function useFollowWindow(ms = FOLLOW_MS): [boolean, () => void] {
  const [following, setFollowing] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const bump = useCallback(() => {
    setFollowing(true);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setFollowing(false), ms);
  }, [ms]);
  useEffect(() => () => clearTimeout(timer.current), []);
  return [following, bump];
}
