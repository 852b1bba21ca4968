// "Where does this come from": the words to mark in a source chunk, and the chunk cut into
// plain and marked segments (rendered as text and <mark> by React, never as an HTML string).

export interface Segment {
  text: string;
  mark: boolean;
}

/** Shorter terms than this are not marked (they would light up half the text). */
export const MIN_TERM_LENGTH = 2;

function clean(terms: Iterable<string>): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of terms) {
    const t = raw.replace(/\s+/g, ' ').trim();
    const key = t.toLowerCase();
    if (t.length < MIN_TERM_LENGTH || seen.has(key)) continue;
    seen.add(key);
    out.push(t);
  }
  return out;
}

/** Keywords as the extraction writes them: separated by commas, semicolons or `<SEP>`. */
export function splitKeywords(keywords: string | null | undefined): string[] {
  return (keywords ?? '')
    .split(/<SEP>|[,;，；]/)
    .map((k) => k.trim())
    .filter(Boolean);
}

/** The terms to mark for an entity: its name. */
export function entityTerms(name: string): string[] {
  return clean([name]);
}

/** The terms to mark for a relation: both endpoint names and its keywords. */
export function relationTerms(source: string, target: string, keywords: string | null | undefined): string[] {
  return clean([source, target, ...splitKeywords(keywords)]);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Every [start, end) range where a term occurs (case-insensitive), overlaps merged. */
export function matchRanges(text: string, terms: string[]): [number, number][] {
  const ranges: [number, number][] = [];
  for (const term of clean(terms)) {
    // whitespace inside a term matches any run of whitespace (names wrap across lines in chunks)
    const pattern = term.split(' ').map(escapeRegExp).join('\\s+');
    const re = new RegExp(pattern, 'giu');
    let m: RegExpExecArray | null;
    while ((m = re.exec(text)) !== null) {
      if (m[0].length === 0) {
        re.lastIndex++;
        continue;
      }
      ranges.push([m.index, m.index + m[0].length]);
      // look again from the next character: "aa" occurs twice in "aaa"
      re.lastIndex = m.index + 1;
    }
  }
  ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: [number, number][] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged;
}

/** `text` as segments, the occurrences of `terms` marked. */
export function highlightSegments(text: string, terms: string[]): Segment[] {
  const segments: Segment[] = [];
  let at = 0;
  for (const [start, end] of matchRanges(text, terms)) {
    if (start > at) segments.push({ text: text.slice(at, start), mark: false });
    segments.push({ text: text.slice(start, end), mark: true });
    at = end;
  }
  if (at < text.length) segments.push({ text: text.slice(at), mark: false });
  return segments;
}

/** How many marked segments there are (shown as "3 mentions"). */
export function countMarks(segments: Segment[]): number {
  return segments.reduce((n, s) => n + (s.mark ? 1 : 0), 0);
}

/**
 * Node names matching a query for the in-page search: exact match first, then names starting
 * with it, then containing it (shorter names first within a group), at most `limit`.
 */
export function searchNames(names: Iterable<string>, query: string, limit = 30): string[] {
  const q = query.trim().toLowerCase();
  if (q === '') return [];
  const scored: [number, string][] = [];
  for (const name of names) {
    const n = name.toLowerCase();
    const at = n.indexOf(q);
    if (at < 0) continue;
    const rank = n === q ? 0 : at === 0 ? 1 : /[^\p{L}\p{N}]/u.test(n[at - 1] ?? '') ? 2 : 3;
    scored.push([rank * 10000 + Math.min(9999, name.length), name]);
  }
  scored.sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1]));
  return scored.slice(0, limit).map(([, n]) => n);
}
