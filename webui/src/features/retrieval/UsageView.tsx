// Tokens, cache hits, calls, timings and cost of one query (from the trace's usage ledger).
import { useTranslation } from 'react-i18next';
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
  const { t } = useTranslation();
  if (!trace) {
    return <p className="muted">{t('retrieval.usage.noTrace')}</p>;
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
                <th scope="col">{t('retrieval.usage.role')}</th>
                <th scope="col" className="num">
                  {t('retrieval.usage.calls')}
                </th>
                <th scope="col" className="num">
                  <abbr title={t('retrieval.usage.cachedTitle')}>{t('retrieval.usage.cached')}</abbr>
                </th>
                <th scope="col" className="num">
                  <abbr title={t('retrieval.usage.inTitle')}>
                    <span className="why-long">{t('retrieval.usage.tokensIn')}</span>
                    <span className="why-short">{t('retrieval.usage.in')}</span>
                  </abbr>
                </th>
                <th scope="col" className="num">
                  <abbr title={t('retrieval.usage.outTitle')}>
                    <span className="why-long">{t('retrieval.usage.tokensOut')}</span>
                    <span className="why-short">{t('retrieval.usage.out')}</span>
                  </abbr>
                </th>
                {showCost && (
                  <th scope="col" className="num">
                    {t('retrieval.usage.cost')}
                  </th>
                )}
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
        <p className="muted">{t('retrieval.usage.noCalls')}</p>
      )}
      <p className="muted why-note">
        {showCost
          ? t('retrieval.usage.costNote')
          : t('retrieval.usage.priceNote')}
      </p>
      {timings.length > 0 && (
        <dl className="why-timings" data-testid="why-timings">
          {timings.map((row) => (
            <div key={row.key}>
              <dt>{row.label}</dt>
              <dd>{formatMs(row.ms)}</dd>
            </div>
          ))}
        </dl>
      )}
    </div>
  );
}
