// Tokens, cache hits, calls, timings and cost of one query (from the trace's usage ledger).
import type { QueryTrace } from '../../api/types';
import { formatCount } from '../../lib/text';
import { formatCost, formatMs, timingRows, usageRows, type Prices, type UsageRow } from './cost';

function Line({ row, showCost, total }: { row: UsageRow; showCost: boolean; total?: boolean }) {
  const Cell = total ? 'th' : 'td';
  return (
    <tr className={total ? 'why-usage-total' : undefined} data-testid={`usage-${row.role}`}>
      <th scope="row">{row.label}</th>
      <Cell className="num">{formatCount(row.calls)}</Cell>
      <Cell className="num">{formatCount(row.cacheHits)}</Cell>
      <Cell className="num">{formatCount(row.tokensIn)}</Cell>
      <Cell className="num">{formatCount(row.tokensOut)}</Cell>
      {showCost && <Cell className="num">{row.cost === null ? '—' : formatCost(row.cost)}</Cell>}
    </tr>
  );
}

export function UsageView({ trace, prices }: { trace: QueryTrace | null; prices: Prices }) {
  if (!trace) {
    return <p className="muted">No usage reported: this server did not send a trace with the answer.</p>;
  }
  const { rows, total } = usageRows(trace.usage, prices);
  const showCost = prices.input !== null || prices.output !== null;
  const timings = timingRows(trace.timings_ms);
  return (
    <div className="why-usage" data-testid="why-usage">
      {rows.length > 0 ? (
        <div className="table-wrap">
          <table className="table why-usage-table">
            <thead>
              <tr>
                <th scope="col">Role</th>
                <th scope="col" className="num">Calls</th>
                <th scope="col" className="num">
                  <abbr title="Calls answered from the LLM cache">Cached</abbr>
                </th>
                <th scope="col" className="num">
                  <abbr title="Input tokens">
                    <span className="why-long">Tokens in</span>
                    <span className="why-short">In</span>
                  </abbr>
                </th>
                <th scope="col" className="num">
                  <abbr title="Output tokens">
                    <span className="why-long">Tokens out</span>
                    <span className="why-short">Out</span>
                  </abbr>
                </th>
                {showCost && <th scope="col" className="num">Cost</th>}
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <Line key={r.role} row={r} showCost={showCost} />
              ))}
            </tbody>
            <tfoot>
              <Line row={total} showCost={showCost} total />
            </tfoot>
          </table>
        </div>
      ) : (
        <p className="muted">No model calls were counted.</p>
      )}
      <p className="muted why-note">
        {showCost
          ? 'Cost = tokens × your prices per 1M tokens (embedding tokens at the input price); cache hits cost nothing.'
          : 'Set prices per 1M tokens in the query settings to see the cost.'}
      </p>
      {timings.length > 0 && (
        <dl className="why-timings" data-testid="why-timings">
          {timings.map((t) => (
            <div key={t.key}>
              <dt>{t.label}</dt>
              <dd>{formatMs(t.ms)}</dd>
            </div>
          ))}
        </dl>
      )}
    </div>
  );
}
