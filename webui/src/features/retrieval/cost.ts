// Tokens and cost of one query, from the trace's usage counters (per role: keywords, answer,
// embed, total) and the user's prices per 1M input/output tokens.
import type { UsageCounters } from '../../api/types';
import { t } from '../../i18n';
import { formatNumber } from '../../i18n/format';

export interface Prices {
  /** Per 1M input tokens, null = unknown. */
  input: number | null;
  /** Per 1M output tokens, null = unknown. */
  output: number | null;
}

export interface UsageRow {
  role: string;
  label: string;
  calls: number;
  cacheHits: number;
  tokensIn: number;
  tokensOut: number;
  /** null when no price is set. */
  cost: number | null;
}

const ROLE_ORDER = ['keywords', 'answer', 'embed'];
const ROLE_LABELS: Record<string, string> = {
  get keywords() {
    return t('retrieval.role.keywords');
  },
  get answer() {
    return t('retrieval.role.answer');
  },
  get embed() {
    return t('retrieval.role.embed');
  },
  get total() {
    return t('retrieval.role.total');
  },
};

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

export function costOf(c: Pick<UsageCounters, 'tokens_in' | 'tokens_out'>, prices: Prices): number | null {
  if (prices.input === null && prices.output === null) return null;
  return (num(c.tokens_in) * (prices.input ?? 0) + num(c.tokens_out) * (prices.output ?? 0)) / 1_000_000;
}

/**
 * One row per role (known roles first, in pipeline order, then any other), and the total: the
 * server's `total` when it sent one, else the sum of the roles. The total's cost is the sum of
 * the rows' costs.
 */
export function usageRows(usage: Record<string, UsageCounters> | null | undefined, prices: Prices): {
  rows: UsageRow[];
  total: UsageRow;
} {
  const entries = Object.entries(usage ?? {}).filter(([role, c]) => role !== 'total' && c && typeof c === 'object');
  entries.sort(([a], [b]) => {
    const ia = ROLE_ORDER.indexOf(a);
    const ib = ROLE_ORDER.indexOf(b);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
  });
  const rows: UsageRow[] = entries.map(([role, c]) => ({
    role,
    label: ROLE_LABELS[role] ?? role,
    calls: num(c.calls),
    cacheHits: num(c.cache_hits),
    tokensIn: num(c.tokens_in),
    tokensOut: num(c.tokens_out),
    cost: costOf(c, prices),
  }));
  const given = usage?.total;
  const sum = (f: (r: UsageRow) => number) => rows.reduce((acc, r) => acc + f(r), 0);
  const costs = rows.map((r) => r.cost).filter((c): c is number => c !== null);
  const total: UsageRow = {
    role: 'total',
    label: t('retrieval.role.total'),
    calls: given ? num(given.calls) : sum((r) => r.calls),
    cacheHits: given ? num(given.cache_hits) : sum((r) => r.cacheHits),
    tokensIn: given ? num(given.tokens_in) : sum((r) => r.tokensIn),
    tokensOut: given ? num(given.tokens_out) : sum((r) => r.tokensOut),
    cost: costs.length > 0 ? costs.reduce((a, b) => a + b, 0) : given ? costOf(given, prices) : null,
  };
  return { rows, total };
}

/** A cost with enough digits to be meaningful: 0 → "$0", 0.000123 → "$0.000123", 1.5 → "$1.50". */
export function formatCost(c: number): string {
  if (c === 0) return '$0';
  if (c >= 1) return `$${c.toFixed(2)}`;
  if (c >= 0.01) return `$${c.toFixed(4)}`;
  return `$${Number(c.toPrecision(3)).toFixed(Math.min(10, Math.max(4, -Math.floor(Math.log10(c)) + 2)))}`;
}

/** 850 → "850 ms", 2150 → "2.15 s", null → "—". */
export function formatMs(ms: number | null | undefined): string {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${formatNumber(ms / 1000, ms < 10_000 ? 2 : 1)} s`;
}

const TIMING_LABELS: Record<string, string> = {
  get keywords() {
    return t('retrieval.role.keywords');
  },
  get retrieval() {
    return t('retrieval.role.retrieval');
  },
  get answer() {
    return t('retrieval.role.answer');
  },
  get total() {
    return t('retrieval.role.total');
  },
};
const TIMING_ORDER = ['keywords', 'retrieval', 'answer', 'total'];

/** The timings in pipeline order, with labels. */
export function timingRows(t: Record<string, number | null> | null | undefined): { key: string; label: string; ms: number | null }[] {
  const keys = Object.keys(t ?? {}).sort((a, b) => {
    const ia = TIMING_ORDER.indexOf(a);
    const ib = TIMING_ORDER.indexOf(b);
    return (ia < 0 ? 50 : ia) - (ib < 0 ? 50 : ib) || a.localeCompare(b);
  });
  return keys.map((key) => {
    const v = t?.[key];
    return { key, label: TIMING_LABELS[key] ?? key, ms: typeof v === 'number' && Number.isFinite(v) ? v : null };
  });
}
