import { describe, expect, it } from 'vitest';
import type { PipelineStatus } from '../../api/types';
import { isAtEnd, lineKind, pipelineView } from './pipelineView';

const base: PipelineStatus = {
  busy: false,
  job_name: 'Default Job',
  job_start: null,
  docs: 0,
  batchs: 0,
  cur_batch: 0,
  request_pending: false,
  latest_message: '',
  history_messages: [],
};

describe('pipeline view', () => {
  it('is idle without a status', () => {
    const v = pipelineView(null);
    expect(v).toMatchObject({ working: false, state: 'idle', batchPercent: null, history: [], truncated: 0 });
  });

  it('shows a running job with batches, elapsed time and history', () => {
    const start = '2025-01-01T10:00:00Z';
    const v = pipelineView(
      {
        ...base,
        busy: true,
        job_name: 'Indexing 3 documents',
        job_start: start,
        docs: 3,
        batchs: 4,
        cur_batch: 2,
        latest_message: 'Chunk 1 of 2',
        history_messages: ['[Truncated history messages: 5/9]', 'a', 'b'],
      },
      Date.parse(start) + 65_000,
    );
    expect(v).toMatchObject({
      working: true,
      state: 'busy',
      stateLabel: 'Running',
      jobName: 'Indexing 3 documents',
      elapsed: '1 min 05 s',
      docs: 3,
      batches: 4,
      curBatch: 2,
      batchPercent: 25,
      latest: 'Chunk 1 of 2',
      history: ['a', 'b'],
      truncated: 5,
    });
  });

  it('tells cancelling, deleting and scanning apart', () => {
    expect(pipelineView({ ...base, busy: true, cancellation_requested: true }).state).toBe('cancelling');
    expect(pipelineView({ ...base, busy: true, destructive_busy: true }).state).toBe('destructive');
    const scan = pipelineView({ ...base, scanning: true });
    expect(scan.state).toBe('scanning');
    expect(scan.working).toBe(true);
    expect(pipelineView({ ...base, pending_enqueues: 2 }).working).toBe(true);
  });

  it('never shows a negative elapsed time', () => {
    expect(pipelineView({ ...base, busy: true, job_start: '2025-01-01T10:00:01Z' }, Date.parse('2025-01-01T10:00:00Z')).elapsed).toBe('0 s');
  });

  it('has no elapsed time while idle', () => {
    expect(pipelineView({ ...base, job_start: '2025-01-01T10:00:00Z' }).elapsed).toBeNull();
  });

  it('counts only finished batches while busy, all of them once idle', () => {
    expect(pipelineView({ ...base, busy: true, batchs: 2, cur_batch: 2 }).batchPercent).toBe(50);
    expect(pipelineView({ ...base, busy: true, batchs: 1, cur_batch: 1 }).batchPercent).toBe(0);
    expect(pipelineView({ ...base, busy: false, batchs: 2, cur_batch: 2 }).batchPercent).toBe(100);
  });
});

describe('log helpers', () => {
  it('follows the end within a small slack', () => {
    expect(isAtEnd(800, 200, 1000)).toBe(true);
    expect(isAtEnd(780, 200, 1000)).toBe(true);
    expect(isAtEnd(500, 200, 1000)).toBe(false);
  });

  it('classifies lines', () => {
    expect(lineKind('Failed to delete doc-1: not found')).toBe('error');
    expect(lineKind('Skipped 2 files already processed')).toBe('warning');
    expect(lineKind('Chunk 3 of 12 extracted 8 Ent + 5 Rel')).toBe('normal');
    expect(lineKind('Processing finished: 2 processed, 0 failed')).toBe('normal');
    expect(lineKind('Processing finished: 1 processed, 1 failed')).toBe('error');
  });
});
