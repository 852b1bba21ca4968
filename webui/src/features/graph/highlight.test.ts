import { describe, expect, it } from 'vitest';
import { countMarks, entityTerms, highlightSegments, matchRanges, relationTerms, searchNames, splitKeywords } from './highlight';

const marked = (text: string, terms: string[]) =>
  highlightSegments(text, terms)
    .filter((s) => s.mark)
    .map((s) => s.text);

describe('highlight terms', () => {
  it('marks an entity name case-insensitively', () => {
    expect(marked('Alice met ALICE and alice.', entityTerms('Alice'))).toEqual(['Alice', 'ALICE', 'alice']);
  });

  it('takes a relation’s endpoints and keywords', () => {
    expect(relationTerms('Alice', 'Bob', 'friendship, works with;<SEP>mentor')).toEqual([
      'Alice',
      'Bob',
      'friendship',
      'works with',
      'mentor',
    ]);
    expect(splitKeywords(undefined)).toEqual([]);
  });

  it('drops empty, one-letter and repeated terms', () => {
    expect(relationTerms('A', 'Bob', ' , bob , BOB ')).toEqual(['Bob']);
  });

  it('merges overlapping and adjacent terms into one mark', () => {
    // "New York" and "York City" overlap in "New York City"
    expect(marked('I love New York City.', ['New York', 'York City'])).toEqual(['New York City']);
    // a term inside another
    expect(marked('Acme Corporation', ['Acme Corporation', 'Corp'])).toEqual(['Acme Corporation']);
    // overlapping occurrences of one term
    expect(matchRanges('aaa', ['aa'])).toEqual([[0, 3]]);
  });

  it('matches names across line breaks', () => {
    expect(marked('said Ada\nLovelace today', ['Ada Lovelace'])).toEqual(['Ada\nLovelace']);
  });

  it('keeps the text whole and HTML-safe: segments, not markup', () => {
    const text = '<b>Tom & Jerry</b> <script>Tom</script>';
    const segs = highlightSegments(text, ['tom', 'a.b']);
    expect(segs.map((s) => s.text).join('')).toBe(text);
    expect(segs.filter((s) => s.mark).map((s) => s.text)).toEqual(['Tom', 'Tom']);
    // regex characters in terms are literal
    expect(marked('a.b axb', ['a.b'])).toEqual(['a.b']);
  });

  it('handles non-ASCII text and terms', () => {
    expect(marked('Der Überfall in MÜNCHEN', ['münchen', 'überfall'])).toEqual(['Überfall', 'MÜNCHEN']);
  });

  it('gives one unmarked segment when nothing matches, none for empty text', () => {
    expect(highlightSegments('nothing here', ['zzz'])).toEqual([{ text: 'nothing here', mark: false }]);
    expect(highlightSegments('', ['a'])).toEqual([]);
    expect(countMarks(highlightSegments('x Bob y Bob', ['bob']))).toBe(2);
  });
});

describe('in-page node search', () => {
  it('ranks exact, prefix, word start, then substring', () => {
    const names = ['Bobby', 'Alice Bob', 'Bob', 'Jacob Bobson', 'Kabob', 'Carol'];
    expect(searchNames(names, 'bob')).toEqual(['Bob', 'Bobby', 'Alice Bob', 'Jacob Bobson', 'Kabob']);
  });

  it('gives nothing for an empty query and respects the limit', () => {
    expect(searchNames(['a'], '  ')).toEqual([]);
    expect(searchNames(['ab', 'abc', 'abcd'], 'a', 2)).toEqual(['ab', 'abc']);
  });
});
