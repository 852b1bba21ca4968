import { describe, expect, it } from 'vitest';
import {
  formatBytes,
  formatDateTime,
  formatDateTimeLong,
  formatDuration,
  metadataText,
  percent,
  shortId,
} from './format';

describe('format', () => {
  it('formats dates in local time, in the UI language, and keeps unreadable text', () => {
    const d = new Date(2025, 11, 1, 9, 5, 7);
    // Intl in the UI's language (English in tests): never the raw ISO text or epoch numbers
    expect(formatDateTime(d.toISOString())).toBe('Dec 1, 2025, 9:05 AM');
    expect(formatDateTimeLong(d.toISOString())).toBe('Dec 1, 2025, 9:05:07 AM');
    expect(formatDateTime('yesterday')).toBe('yesterday');
    expect(formatDateTime(null)).toBe('—');
    expect(formatDateTime('')).toBe('—');
  });

  it('formats sizes', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(812)).toBe('812 B');
    expect(formatBytes(4300)).toBe('4.2 KB');
    expect(formatBytes(13 * 1024 * 1024)).toBe('13 MB');
    expect(formatBytes(-1)).toBe('—');
  });

  it('formats durations', () => {
    expect(formatDuration(42_400)).toBe('42 s');
    expect(formatDuration(185_000)).toBe('3 min 05 s');
    expect(formatDuration(2 * 3600_000 + 7 * 60_000)).toBe('2 h 07 min');
    expect(formatDuration(-5)).toBe('—');
  });

  it('shortens ids in the middle', () => {
    expect(shortId('doc-short')).toBe('doc-short');
    expect(shortId('doc-0123456789abcdef0123456789abcdef')).toBe('doc-012345…cdef');
    expect(shortId(undefined)).toBe('—');
  });

  it('computes percentages', () => {
    expect(percent(1, 4)).toBe(25);
    expect(percent(2, 3)).toBe(66);
    expect(percent(5, 4)).toBe(100);
    expect(percent(1, 0)).toBeNull();
  });

  it('prints metadata', () => {
    expect(metadataText({ a: 1 })).toBe('{"a":1}');
    expect(metadataText(true)).toBe('true');
    expect(metadataText(null)).toBe('—');
  });
});
