import { describe, expect, it } from 'vitest';
import { baseName, formatCount, plural, splitSep } from './text';

describe('text helpers', () => {
  it('groups the digits of counts, whatever the locale', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(999)).toBe('999');
    expect(formatCount(1000)).toBe('1,000');
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatCount(-4200)).toBe('-4,200');
    expect(formatCount(1499.6)).toBe('1,500');
    expect(formatCount(null)).toBe('—');
    expect(formatCount(Number.NaN)).toBe('—');
  });

  it('pluralises', () => {
    expect(plural(1, 'document')).toBe('1 document');
    expect(plural(0, 'chunk')).toBe('0 chunks');
    expect(plural(1200, 'document')).toBe('1,200 documents');
    expect(plural(2, 'batch', 'batches')).toBe('2 batches');
  });

  it('takes the file name of a path', () => {
    expect(baseName('dir/sub/file.pdf')).toBe('file.pdf');
    expect(baseName('C:\\x\\y.txt')).toBe('y.txt');
    expect(baseName('plain')).toBe('plain');
    expect(baseName('dir/')).toBe('dir/');
  });

  it('splits <SEP> values', () => {
    expect(splitSep('x<SEP> y <SEP><SEP>x')).toEqual(['x', 'y']);
    expect(splitSep('')).toEqual([]);
    expect(splitSep(undefined)).toEqual([]);
    expect(splitSep(3)).toEqual([]);
  });
});
