import { describe, expect, it } from 'vitest';
import { formatHash, parseHash } from './navigation';

describe('hash routes', () => {
  it('parses pages and parameters, defaulting to documents', () => {
    expect(parseHash('#/graph?label=Ada%20Lovelace&depth=2')).toEqual({
      page: 'graph',
      params: { label: 'Ada Lovelace', depth: '2' },
    });
    expect(parseHash('')).toEqual({ page: 'documents', params: {} });
    expect(parseHash('#/nonsense')).toEqual({ page: 'documents', params: {} });
    expect(parseHash('#retrieval')).toEqual({ page: 'retrieval', params: {} });
  });

  it('round-trips', () => {
    const r = { page: 'graph' as const, params: { label: 'A&B=C' } };
    expect(parseHash(formatHash(r))).toEqual(r);
    expect(formatHash({ page: 'api', params: {} })).toBe('#/api');
  });
});
