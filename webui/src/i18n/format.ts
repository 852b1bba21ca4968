// Numbers, dates and durations in the UI's language, with Intl (never epoch seconds or
// 0.20000000298023224). The formatters are cached per language.
import { locale } from './index';

const numberFormats = new Map<string, Intl.NumberFormat>();
const dateFormats = new Map<string, Intl.DateTimeFormat>();

function cached<T>(map: Map<string, T>, key: string, make: () => T): T {
  let f = map.get(key);
  if (!f) {
    f = make();
    map.set(key, f);
  }
  return f;
}

/** 12345 → "12,345" (en), "12.345" (vi)…; at most `digits` decimals; "—" when not a number. */
export function formatNumber(n: number | null | undefined, digits = 0): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  const lang = locale();
  return cached(numberFormats, `${lang}|${digits}`, () => new Intl.NumberFormat(lang, { maximumFractionDigits: digits })).format(n);
}

/** A measured value of unknown scale (a setting, a score): up to 4 significant decimals. */
export function formatDecimal(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Number.isInteger(n)) return formatNumber(n);
  return formatNumber(n, Math.abs(n) >= 100 ? 2 : 4);
}

/** A date and time in the browser's time zone and the UI's language; the raw text when it is not a date. */
export function formatDate(value: string | number | Date | null | undefined, seconds = false): string {
  if (value === null || value === undefined || value === '') return '—';
  // numbers are epoch seconds (LightRAG's process_start_time) or milliseconds
  const d = typeof value === 'number' ? new Date(value < 1e12 ? value * 1000 : value) : new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  const lang = locale();
  const f = cached(dateFormats, `${lang}|${seconds}`, () =>
    new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: seconds ? 'medium' : 'short' }),
  );
  return f.format(d);
}
