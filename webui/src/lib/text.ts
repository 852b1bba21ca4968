// Small text helpers every page uses: counts, plurals, file names, and LightRAG's `<SEP>`-joined
// values (descriptions, source chunk ids and file paths of merged entities and relations).
import { formatNumber } from '../i18n/format';

/** 12345 → "12,345" in English, "12.345" in Vietnamese… (Intl, the UI's language); "—" when not a number. */
export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  return formatNumber(Math.round(n));
}

/** "1 document", "3 documents", "1,200 documents". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** The last segment of a file path (either separator); the path itself when it has none. */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] || path;
}

/** The separator LightRAG joins merged values with. */
export const SEP = '<SEP>';

/** Splits a `<SEP>`-joined value: parts trimmed, empty ones and repeats dropped, order kept. */
export function splitSep(value: unknown): string[] {
  if (typeof value !== 'string' || value === '') return [];
  const out: string[] = [];
  for (const part of value.split(SEP)) {
    const t = part.trim();
    if (t && !out.includes(t)) out.push(t);
  }
  return out;
}
