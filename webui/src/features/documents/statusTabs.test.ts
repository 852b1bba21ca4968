import { describe, expect, it } from 'vitest';
import { filterField, inProgressCount, isInProgress, statusTabs, totalOf } from './statusTabs';

describe('status tabs', () => {
  it('lists every status with its count, zero when absent', () => {
    const tabs = statusTabs({ all: 7, processed: 4, failed: 2, pending: 1 });
    expect(tabs.map((t) => t.filter)).toEqual([
      'all',
      'pending',
      'parsing',
      'analyzing',
      'processing',
      'preprocessed',
      'processed',
      'failed',
    ]);
    expect(Object.fromEntries(tabs.map((t) => [t.filter, t.count]))).toEqual({
      all: 7,
      pending: 1,
      parsing: 0,
      analyzing: 0,
      processing: 0,
      preprocessed: 0,
      processed: 4,
      failed: 2,
    });
  });

  it('has no counts before the first answer', () => {
    expect(statusTabs(null).every((t) => t.count === null)).toBe(true);
  });

  it('sums the statuses when the server gives no total', () => {
    expect(totalOf({ processed: 3, failed: 1 })).toBe(4);
    expect(totalOf(undefined)).toBe(0);
  });

  it('sends status_filter for one status and nothing for all', () => {
    expect(filterField('all')).toEqual({});
    expect(filterField('failed')).toEqual({ status_filter: 'failed' });
  });

  it('counts the documents still in the pipeline', () => {
    expect(inProgressCount({ pending: 2, parsing: 1, processing: 3, processed: 9, failed: 1 })).toBe(6);
    expect(isInProgress('analyzing')).toBe(true);
    expect(isInProgress('processed')).toBe(false);
    expect(isInProgress(undefined)).toBe(false);
  });
});
