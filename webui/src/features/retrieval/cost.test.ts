import { describe, expect, it } from 'vitest';
import { costOf, formatCost, formatMs, timingRows, usageRows } from './cost';

const usage = {
  total: { calls: 3, cache_hits: 1, tokens_in: 1500, tokens_out: 300 },
  embed: { calls: 1, cache_hits: 0, tokens_in: 200, tokens_out: 0 },
  answer: { calls: 1, cache_hits: 0, tokens_in: 1000, tokens_out: 250 },
  keywords: { calls: 1, cache_hits: 1, tokens_in: 300, tokens_out: 50 },
};

describe('costOf', () => {
  it('prices input and output per million tokens', () => {
    expect(costOf({ tokens_in: 1_000_000, tokens_out: 500_000 }, { input: 0.15, output: 0.6 })).toBeCloseTo(0.45);
    expect(costOf({ tokens_in: 1000, tokens_out: 1000 }, { input: 2, output: null })).toBeCloseTo(0.002);
    expect(costOf({ tokens_in: 1000, tokens_out: 1000 }, { input: null, output: null })).toBeNull();
  });
});

describe('usageRows', () => {
  it('orders the roles as the pipeline runs them and keeps the server total', () => {
    const { rows, total } = usageRows(usage, { input: null, output: null });
    expect(rows.map((r) => r.role)).toEqual(['keywords', 'answer', 'embed']);
    expect(rows.every((r) => r.cost === null)).toBe(true);
    expect(total).toMatchObject({ calls: 3, cacheHits: 1, tokensIn: 1500, tokensOut: 300, cost: null });
  });
  it('sums the roles when there is no total; total cost is the sum of the rows', () => {
    const { total, rows } = usageRows(
      { answer: usage.answer, keywords: usage.keywords, rerank: { calls: 1, cache_hits: 0, tokens_in: 10, tokens_out: 0 } },
      { input: 1, output: 2 },
    );
    expect(rows.map((r) => r.role)).toEqual(['keywords', 'answer', 'rerank']);
    expect(total.tokensIn).toBe(1310);
    expect(total.tokensOut).toBe(300);
    expect(total.cost).toBeCloseTo((1310 * 1 + 300 * 2) / 1e6);
  });
  it('copes with nothing', () => {
    expect(usageRows(undefined, { input: 1, output: 1 })).toMatchObject({ rows: [], total: { tokensIn: 0, cost: null } });
  });
});

describe('formatting', () => {
  it('formats counts, costs and durations', () => {
    expect(formatCost(0)).toBe('$0');
    expect(formatCost(1.5)).toBe('$1.50');
    expect(formatCost(0.0345)).toBe('$0.0345');
    expect(formatCost(0.000123)).toBe('$0.000123');
    expect(formatMs(850)).toBe('850 ms');
    expect(formatMs(2150)).toBe('2.15 s');
    expect(formatMs(null)).toBe('—');
  });
  it('orders timings', () => {
    expect(timingRows({ total: 10, answer: 5, keywords: 1, retrieval: null }).map((t) => [t.label, t.ms])).toEqual([
      ['Keywords', 1],
      ['Retrieval', null],
      ['Answer', 5],
      ['Total', 10],
    ]);
  });
});
