import { describe, expect, it } from 'vitest';
import {
  MAX_BACKOFF_MS,
  PIPELINE_BUSY_MS,
  PIPELINE_IDLE_MS,
  TABLE_BUSY_MS,
  backoff,
  pipelineInterval,
  pipelineWorking,
  tableInterval,
} from './polling';

describe('polling intervals', () => {
  it('polls the pipeline fast while busy and slowly while idle', () => {
    expect(pipelineInterval({ active: true, visible: true, busy: true })).toBe(PIPELINE_BUSY_MS);
    expect(pipelineInterval({ active: true, visible: true, busy: false })).toBe(PIPELINE_IDLE_MS);
    expect(PIPELINE_BUSY_MS).toBeLessThanOrEqual(1000);
    expect(PIPELINE_IDLE_MS).toBeGreaterThanOrEqual(5000);
  });

  it('pauses when the page is not active or the browser tab is hidden', () => {
    expect(pipelineInterval({ active: false, visible: true, busy: true })).toBeNull();
    expect(pipelineInterval({ active: true, visible: false, busy: true })).toBeNull();
    expect(tableInterval({ active: false, visible: true, busy: true, inProgress: 3 })).toBeNull();
    expect(tableInterval({ active: true, visible: false, busy: true, inProgress: 3 })).toBeNull();
  });

  it('refreshes the table only while there is something to follow', () => {
    expect(tableInterval({ active: true, visible: true, busy: false, inProgress: 0 })).toBeNull();
    expect(tableInterval({ active: true, visible: true, busy: true, inProgress: 0 })).toBe(TABLE_BUSY_MS);
    expect(tableInterval({ active: true, visible: true, busy: false, inProgress: 2 })).toBe(TABLE_BUSY_MS);
  });

  it('backs off after failures, capped', () => {
    expect(backoff(1000, 0)).toBe(1000);
    expect(backoff(1000, 1)).toBe(2000);
    expect(backoff(1000, 3)).toBe(8000);
    expect(backoff(1000, 50)).toBe(MAX_BACKOFF_MS);
    expect(pipelineInterval({ active: true, visible: true, busy: true, failures: 2 })).toBe(4 * PIPELINE_BUSY_MS);
  });

  it('treats scans and pending enqueues as work', () => {
    expect(pipelineWorking(null)).toBe(false);
    expect(pipelineWorking({ busy: false })).toBe(false);
    expect(pipelineWorking({ busy: true })).toBe(true);
    expect(pipelineWorking({ scanning: true })).toBe(true);
    expect(pipelineWorking({ pending_enqueues: 1 })).toBe(true);
  });
});
