// Access to localStorage/sessionStorage that never throws (private mode, quota, no window).

export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export function memoryStorage(): KeyValueStorage {
  const map = new Map<string, string>();
  return {
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => void map.set(k, v),
    removeItem: (k) => void map.delete(k),
  };
}

function safe(storage: () => Storage | undefined): KeyValueStorage {
  const fallback = memoryStorage();
  const target = (): KeyValueStorage => {
    try {
      return storage() ?? fallback;
    } catch {
      return fallback;
    }
  };
  return {
    getItem(k) {
      try {
        return target().getItem(k);
      } catch {
        return fallback.getItem(k);
      }
    },
    setItem(k, v) {
      try {
        target().setItem(k, v);
      } catch {
        fallback.setItem(k, v);
      }
    },
    removeItem(k) {
      try {
        target().removeItem(k);
      } catch {
        fallback.removeItem(k);
      }
    },
  };
}

export const local: KeyValueStorage = safe(() => (typeof window === 'undefined' ? undefined : window.localStorage));
export const session: KeyValueStorage = safe(() =>
  typeof window === 'undefined' ? undefined : window.sessionStorage,
);

/** Reads a JSON value, falling back to `fallback` when missing or unreadable. */
export function readJson<T>(storage: KeyValueStorage, key: string, fallback: T): T {
  const raw = storage.getItem(key);
  if (raw === null) return fallback;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return fallback;
  }
}

export function writeJson(storage: KeyValueStorage, key: string, value: unknown): void {
  storage.setItem(key, JSON.stringify(value));
}
