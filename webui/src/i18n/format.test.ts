import { afterEach, describe, expect, it } from 'vitest';
import { language } from './index';
import { formatDate, formatDecimal, formatNumber } from './format';
import { metadataText } from '../features/documents/format';

afterEach(() => language.set('en'));

describe('numbers and dates in the UI language', () => {
  it('shows a float32 setting as the number it stands for', () => {
    expect(formatDecimal(0.20000000298023224)).toBe('0.2');
    expect(formatDecimal(1024)).toBe('1,024');
    expect(formatDecimal(123.456789)).toBe('123.46');
  });

  it('groups digits the way the language does', () => {
    expect(formatNumber(1234567)).toBe('1,234,567');
    language.set('vi');
    expect(formatNumber(1234567)).toBe('1.234.567');
    language.set('de');
    expect(formatNumber(1234.5, 1)).toBe('1.234,5');
  });

  it('turns epoch seconds and milliseconds into dates, never shows them raw', () => {
    const seconds = 1796650249;
    const text = formatDate(seconds, true);
    expect(text).not.toContain(String(seconds));
    expect(text).toBe(formatDate(seconds * 1000, true));
    expect(text).toMatch(/2026/);
    expect(formatDate('not a date')).toBe('not a date');
    expect(formatDate(null)).toBe('—');
  });

  it('shows document metadata instants as dates', () => {
    expect(metadataText(1796650249, 'process_start_time')).not.toContain('1796650249');
    expect(metadataText(1796650249, 'process_start_time')).toMatch(/2026/);
    expect(metadataText('2026-12-01T10:00:00Z', 'updated_at')).toMatch(/2026/);
    expect(metadataText(42, 'chunks')).toBe('42');
    expect(metadataText('abc', 'file_time_hint')).toBe('abc');
  });

  it('formats dates for the chosen language', () => {
    const iso = '2026-12-08T09:05:00Z';
    const en = formatDate(iso);
    language.set('zh-CN');
    const zh = formatDate(iso);
    expect(zh).not.toBe(en);
    expect(zh).toContain('2026');
  });
});
