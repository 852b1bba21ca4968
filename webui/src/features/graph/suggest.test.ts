import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSuggestions, Latest, moveActive, type SuggestState, WHOLE_GRAPH, withWholeGraph } from './suggest';

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('Latest', () => {
  it('lets only the last request through', () => {
    const l = new Latest();
    const a = l.next();
    const b = l.next();
    expect(l.isLatest(a)).toBe(false);
    expect(l.isLatest(b)).toBe(true);
  });
});

describe('label suggestions', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('shows popular labels (after *) for an empty box, fetched once', async () => {
    const popular = vi.fn(async () => ['Alice', 'Bob']);
    const states: SuggestState[] = [];
    const s = createSuggestions({ popular, search: async () => [] }, (st) => states.push(st));
    s.input('');
    expect(s.state()).toMatchObject({ loading: true, items: [WHOLE_GRAPH] });
    await vi.runAllTimersAsync();
    expect(s.state()).toMatchObject({ loading: false, items: ['*', 'Alice', 'Bob'] });
    s.input('');
    expect(s.state().items).toEqual(['*', 'Alice', 'Bob']);
    expect(popular).toHaveBeenCalledTimes(1);
    s.invalidate();
    s.input('');
    await vi.runAllTimersAsync();
    expect(popular).toHaveBeenCalledTimes(2);
  });

  it('debounces the search while typing', async () => {
    const search = vi.fn(async (q: string) => [`${q}!`]);
    const s = createSuggestions({ popular: async () => [], search, debounceMs: 200 }, () => undefined);
    s.input('a');
    s.input('al');
    s.input('ali');
    expect(search).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(199);
    expect(search).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(search).toHaveBeenCalledTimes(1);
    expect(search.mock.calls[0]?.[0]).toBe('ali');
    await vi.runAllTimersAsync();
    expect(s.state()).toMatchObject({ query: 'ali', items: ['ali!'], loading: false });
  });

  it('ignores a stale answer that arrives after a newer one, and aborts the stale request', async () => {
    const answers = new Map<string, ReturnType<typeof deferred<string[]>>>();
    const signals = new Map<string, AbortSignal>();
    const search = (q: string, signal: AbortSignal) => {
      const d = deferred<string[]>();
      answers.set(q, d);
      signals.set(q, signal);
      return d.promise;
    };
    const s = createSuggestions({ popular: async () => [], search, debounceMs: 10 }, () => undefined);
    s.input('bo');
    await vi.advanceTimersByTimeAsync(10);
    s.input('bob');
    await vi.advanceTimersByTimeAsync(10);
    expect(signals.get('bo')?.aborted).toBe(true);
    answers.get('bob')?.resolve(['Bob']);
    await vi.runAllTimersAsync();
    answers.get('bo')?.resolve(['Bo', 'Bonn']);
    await vi.runAllTimersAsync();
    expect(s.state()).toMatchObject({ query: 'bob', items: ['Bob'], loading: false });
  });

  it('reports the error of the latest query only', async () => {
    vi.useRealTimers();
    const s = createSuggestions(
      {
        popular: async () => [],
        search: async (q) => {
          throw new Error(`boom ${q}`);
        },
        debounceMs: 0,
      },
      () => undefined,
    );
    s.input('x');
    await new Promise((r) => setTimeout(r, 5));
    await flush();
    expect(s.state()).toMatchObject({ loading: false, error: 'boom x' });
    s.dispose();
  });

  it('lists popular labels for "*" as for an empty box (the search is not asked)', async () => {
    const search = vi.fn(async () => ['nope']);
    const s = createSuggestions({ popular: async () => ['Hub'], search }, () => undefined);
    s.input(' * ');
    await vi.runAllTimersAsync();
    expect(s.state().items).toEqual(['*', 'Hub']);
    expect(search).not.toHaveBeenCalled();
  });

  it('puts * first without duplicates', () => {
    expect(withWholeGraph(['a', '*', 'a', 'b'])).toEqual(['*', 'a', 'b']);
  });
});

describe('combobox keys', () => {
  it('moves and wraps', () => {
    expect(moveActive(-1, 3, 'ArrowDown')).toBe(0);
    expect(moveActive(2, 3, 'ArrowDown')).toBe(0);
    expect(moveActive(0, 3, 'ArrowUp')).toBe(2);
    expect(moveActive(1, 3, 'Home')).toBe(0);
    expect(moveActive(1, 3, 'End')).toBe(2);
    expect(moveActive(0, 0, 'ArrowDown')).toBe(-1);
  });
});

describe('dispose', () => {
  it('drops the pending answer but stays usable (React mounts twice in strict mode)', async () => {
    let resolve!: (v: string[]) => void;
    const s = createSuggestions({ popular: () => new Promise((r) => (resolve = r)), search: async (q) => [q] , debounceMs: 0 }, () => undefined);
    s.input('');
    s.dispose();
    resolve(['late']);
    await flush();
    expect(s.state().items).toEqual(['*']);
    s.input('x');
    await new Promise((r) => setTimeout(r, 5));
    expect(s.state().items).toEqual(['x']);
  });
});
