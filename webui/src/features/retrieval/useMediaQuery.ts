import { useCallback, useSyncExternalStore } from 'react';

/** Whether a CSS media query matches, updated live. */
export function useMediaQuery(query: string): boolean {
  // a stable subscription: a new function on every render would make React unsubscribe and subscribe again each time
  const subscribe = useCallback(
    (onChange: () => void) => {
      const m = window.matchMedia?.(query);
      m?.addEventListener('change', onChange);
      return () => m?.removeEventListener('change', onChange);
    },
    [query],
  );
  return useSyncExternalStore(subscribe, () => window.matchMedia?.(query).matches ?? false, () => false);
}
