import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Health } from '../api/types';
import { HEALTH_INTERVAL_BUSY_MS, HEALTH_INTERVAL_MS, health, healthRefresh, pollHealth } from './health';

const answer = (busy: boolean) => ({ status: 'healthy', pipeline_busy: busy }) as unknown as Health;

function setup(busy = false) {
  let visible = true;
  let listener: (() => void) | null = null;
  const fetchHealth = vi.fn(async () => answer(busy));
  const stop = pollHealth(fetchHealth, {
    visible: () => visible,
    onVisibilityChange: (l) => {
      listener = l;
      return () => {
        listener = null;
      };
    },
  });
  const setVisible = (v: boolean) => {
    visible = v;
    listener?.();
  };
  return { fetchHealth, stop, setVisible, hasListener: () => listener !== null };
}

describe('pollHealth', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    health.set({ health: null, error: null, checkedAt: null });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('polls at once, then every interval, faster while the pipeline is busy', async () => {
    const idle = setup(false);
    await vi.advanceTimersByTimeAsync(0);
    expect(idle.fetchHealth).toHaveBeenCalledTimes(1);
    expect(health.get().health?.pipeline_busy).toBe(false);
    await vi.advanceTimersByTimeAsync(HEALTH_INTERVAL_MS - 1);
    expect(idle.fetchHealth).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(idle.fetchHealth).toHaveBeenCalledTimes(2);
    idle.stop();

    const busy = setup(true);
    await vi.advanceTimersByTimeAsync(HEALTH_INTERVAL_BUSY_MS);
    expect(busy.fetchHealth).toHaveBeenCalledTimes(2);
    busy.stop();
  });

  it('asks again at once when healthRefresh changes', async () => {
    const p = setup();
    await vi.advanceTimersByTimeAsync(0);
    healthRefresh.set((n) => n + 1);
    await vi.advanceTimersByTimeAsync(0);
    expect(p.fetchHealth).toHaveBeenCalledTimes(2);
    // the regular schedule starts over from the refresh: one poll per interval, not two
    await vi.advanceTimersByTimeAsync(HEALTH_INTERVAL_MS);
    expect(p.fetchHealth).toHaveBeenCalledTimes(3);
    p.stop();
  });

  it('pauses while the tab is hidden and checks at once when it is shown', async () => {
    const p = setup();
    await vi.advanceTimersByTimeAsync(0);
    p.setVisible(false);
    await vi.advanceTimersByTimeAsync(HEALTH_INTERVAL_MS * 4);
    expect(p.fetchHealth).toHaveBeenCalledTimes(1);
    healthRefresh.set((n) => n + 1);
    await vi.advanceTimersByTimeAsync(0);
    expect(p.fetchHealth).toHaveBeenCalledTimes(1);
    p.setVisible(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(p.fetchHealth).toHaveBeenCalledTimes(2);
    p.stop();
  });

  it('stops: no more polls, no listeners left', async () => {
    const p = setup();
    await vi.advanceTimersByTimeAsync(0);
    p.stop();
    healthRefresh.set((n) => n + 1);
    await vi.advanceTimersByTimeAsync(HEALTH_INTERVAL_MS * 2);
    expect(p.fetchHealth).toHaveBeenCalledTimes(1);
    expect(p.hasListener()).toBe(false);
  });

  it('keeps the last answer and records the error when a poll fails', async () => {
    let fail = false;
    const fetchHealth = vi.fn(async () => {
      if (fail) throw new Error('Cannot reach the server');
      return answer(false);
    });
    const stop = pollHealth(fetchHealth, { visible: () => true, onVisibilityChange: () => () => undefined });
    await vi.advanceTimersByTimeAsync(0);
    fail = true;
    await vi.advanceTimersByTimeAsync(HEALTH_INTERVAL_MS);
    expect(health.get()).toMatchObject({ error: 'Cannot reach the server', health: { status: 'healthy' } });
    stop();
  });
});
