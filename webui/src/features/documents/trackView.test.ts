import { describe, expect, it } from 'vitest';
import type { TrackStatus } from '../../api/types';
import { summaryOf, summaryText, trackSettled } from './trackView';

const t = (summary: TrackStatus['status_summary'], n = 1): TrackStatus => ({
  track_id: 't',
  documents: Array.from({ length: n }, (_, i) => ({
    id: `d${i}`,
    status: 'processed',
    file_path: '',
    content_summary: '',
    content_length: 0,
    created_at: '',
    updated_at: '',
  })),
  total_count: n,
  status_summary: summary,
});

describe('track view', () => {
  it('is settled when nothing is pending or processing', () => {
    expect(trackSettled(null)).toBe(false);
    expect(trackSettled(t({ processed: 2, failed: 1 }))).toBe(true);
    expect(trackSettled(t({ processed: 1, pending: 1 }))).toBe(false);
    expect(trackSettled(t({ parsing: 1 }))).toBe(false);
    expect(trackSettled(t({}, 0))).toBe(true);
  });

  it('counts from the documents when there is no summary', () => {
    expect(summaryOf(t({}, 2))).toEqual({ processed: 2 });
  });

  it('describes the summary in pipeline order', () => {
    expect(summaryText(t({ failed: 1, processed: 2, pending: 3 }))).toBe('3 pending · 2 processed · 1 failed');
    expect(summaryText(t({}, 0))).toBe('no documents');
  });
});
