// The query settings of the page, shared by its panels and kept in localStorage.
import { useCallback } from 'react';
import { createStore, useStore } from '../../lib/store';
import { local } from '../../lib/storage';
import { loadSettings, resetSettings, saveSettings, type QuerySettings } from './settings';

export const settingsStore = createStore<QuerySettings>(loadSettings(local));

export function useSettings(): {
  settings: QuerySettings;
  update: (patch: Partial<QuerySettings>) => void;
  reset: () => void;
} {
  const settings = useStore(settingsStore);
  const update = useCallback((patch: Partial<QuerySettings>) => {
    settingsStore.set((s) => {
      const next = { ...s, ...patch };
      saveSettings(local, next);
      return next;
    });
  }, []);
  const reset = useCallback(() => {
    settingsStore.set((s) => {
      const next = resetSettings(s);
      saveSettings(local, next);
      return next;
    });
  }, []);
  return { settings, update, reset };
}
