// Suggestions of the label combobox: the most connected entities when the box is empty, the
// server's fuzzy search while typing (debounced; an answer to an older query is ignored, and the
// request of an older query is aborted), `*` for the whole graph.
import { describeError, isAbort } from '../../api/errors';

export const WHOLE_GRAPH = '*';

export interface SuggestState {
  query: string;
  items: string[];
  loading: boolean;
  error: string | null;
}

export interface SuggestDeps {
  popular: (signal: AbortSignal) => Promise<string[]>;
  search: (q: string, signal: AbortSignal) => Promise<string[]>;
  debounceMs?: number;
  /** Replaceable timers (tests). */
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

export interface Suggestions {
  /** The text in the box changed (or the box was opened: call with its text). */
  input(query: string): void;
  /** Forget the cached popular labels (after the graph changed). */
  invalidate(): void;
  state(): SuggestState;
  /** Cancels what is pending (the object stays usable: React may mount a component twice). */
  dispose(): void;
}

/** Lets only the last of several overlapping requests through. */
export class Latest {
  private seq = 0;
  /** Starts a new request; the previous ones become stale. */
  next(): number {
    this.seq += 1;
    return this.seq;
  }
  isLatest(id: number): boolean {
    return id === this.seq;
  }
}

/** Puts `*` first and removes duplicates. */
export function withWholeGraph(items: string[]): string[] {
  return [WHOLE_GRAPH, ...items.filter((i, n) => i !== WHOLE_GRAPH && items.indexOf(i) === n)];
}

export function createSuggestions(deps: SuggestDeps, onChange: (s: SuggestState) => void): Suggestions {
  const debounceMs = deps.debounceMs ?? 250;
  const setTimer = deps.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
  const clearTimer = deps.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
  const latest = new Latest();
  let state: SuggestState = { query: '', items: [], loading: false, error: null };
  let popular: string[] | null = null;
  let timer: unknown = null;
  let controller: AbortController | null = null;

  const set = (patch: Partial<SuggestState>) => {
    state = { ...state, ...patch };
    onChange(state);
  };

  const cancel = () => {
    if (timer !== null) clearTimer(timer);
    timer = null;
    controller?.abort();
    controller = null;
  };

  const run = (id: number, query: string, fetcher: (signal: AbortSignal) => Promise<string[]>, done: (items: string[]) => void) => {
    controller = new AbortController();
    const signal = controller.signal;
    fetcher(signal).then(
      (items) => {
        if (!latest.isLatest(id)) return;
        done(items);
        set({ query, items: query.trim() === '' ? withWholeGraph(items) : items, loading: false, error: null });
      },
      (e: unknown) => {
        if (!latest.isLatest(id) || isAbort(e)) return;
        set({ loading: false, error: describeError(e) });
      },
    );
  };

  return {
    input(query) {
      cancel();
      const id = latest.next();
      const q = query.trim();
      // "*" (what the box shows for the whole graph) lists the same as an empty box
      if (q === '' || q === WHOLE_GRAPH) {
        if (popular) {
          set({ query, items: withWholeGraph(popular), loading: false, error: null });
          return;
        }
        set({ query, items: [WHOLE_GRAPH], loading: true, error: null });
        run(id, '', (signal) => deps.popular(signal), (items) => (popular = items));
        return;
      }
      set({ query, loading: true, error: null });
      timer = setTimer(() => {
        timer = null;
        run(id, query, (signal) => deps.search(q, signal), () => undefined);
      }, debounceMs);
    },
    invalidate() {
      popular = null;
    },
    state: () => state,
    dispose() {
      cancel();
      latest.next();
    },
  };
}

/** The option the arrow keys move to (wrapping; -1 = none). */
export function moveActive(active: number, count: number, key: 'ArrowDown' | 'ArrowUp' | 'Home' | 'End'): number {
  if (count <= 0) return -1;
  switch (key) {
    case 'ArrowDown':
      return active < 0 || active >= count - 1 ? 0 : active + 1;
    case 'ArrowUp':
      return active <= 0 ? count - 1 : active - 1;
    case 'Home':
      return 0;
    case 'End':
      return count - 1;
  }
}
