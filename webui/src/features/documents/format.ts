// Formatting of document fields for the table, the dialogs and the pipeline panel.
import { formatDate, formatDecimal, formatNumber } from '../../i18n/format';

/** "Dec 1, 2025, 2:53 PM" (en), "2025年12月1日 14:53" (zh-CN)… in the browser's time zone; the raw text when it is not a date. */
export function formatDateTime(iso: string | null | undefined): string {
  return formatDate(iso);
}

/** Same with seconds, for places where the exact moment matters (detail dialog, job start). */
export function formatDateTimeLong(iso: string | null | undefined): string {
  return formatDate(iso, true);
}

/** File sizes: "812 B", "4.2 KB", "13 MB". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  if (bytes < 1024) return `${formatNumber(bytes)} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = bytes / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${formatNumber(v, v < 10 ? 1 : 0)} ${units[i]}`;
}

/** Elapsed time between two instants: "42 s", "3 min 05 s", "2 h 07 min". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  const h = Math.floor(m / 60);
  return `${h} h ${String(m % 60).padStart(2, '0')} min`;
}

/** Long ids shortened in the middle: "doc-1a2b3c…9f0e". The full id goes in a title. */
export function shortId(id: string | null | undefined, head = 10, tail = 4): string {
  if (!id) return '—';
  if (id.length <= head + tail + 1) return id;
  return `${id.slice(0, head)}…${id.slice(-tail)}`;
}

/** A percentage 0..100 (rounded down, so 100 means done), or null when total is unknown. */
export function percent(done: number, total: number): number | null {
  if (!Number.isFinite(done) || !Number.isFinite(total) || total <= 0) return null;
  return Math.max(0, Math.min(100, Math.floor((done / total) * 100)));
}

/** Metadata keys that hold an instant (LightRAG's `process_start_time`, `…_at`). */
const TIME_KEY = /(_time|_at|_date)$/;

/**
 * A metadata value as text for the detail dialog: instants as dates in the UI's language (never
 * epoch seconds), other numbers by locale.
 */
export function metadataText(value: unknown, key = ''): string {
  if (value === null || value === undefined) return '—';
  if (TIME_KEY.test(key) && (typeof value === 'number' || typeof value === 'string')) {
    const n = typeof value === 'number' ? value : Number(value);
    // epoch seconds or milliseconds from 2001 on; an ISO string as it is parsed
    if (Number.isFinite(n) ? n > 1e9 : !Number.isNaN(Date.parse(String(value)))) return formatDate(Number.isFinite(n) ? n : String(value), true);
  }
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return formatDecimal(value);
  if (typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}
