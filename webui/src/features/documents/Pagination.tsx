// Page navigation and page size under the table.
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Pagination as PaginationInfo } from '../../api/types';
import { formatCount } from '../../lib/text';
import { PAGE_SIZES } from './tableState';

export function Pagination({
  info,
  page,
  pageSize,
  onPage,
  onPageSize,
}: {
  info: PaginationInfo | null;
  page: number;
  pageSize: number;
  onPage: (page: number) => void;
  onPageSize: (size: number) => void;
}) {
  const { t } = useTranslation();
  const total = info?.total_count ?? 0;
  const pages = Math.max(1, info?.total_pages ?? 1);
  const first = total === 0 ? 0 : (page - 1) * pageSize + 1;
  const last = Math.min(total, page * pageSize);
  const [typed, setTyped] = useState(String(page));
  useEffect(() => setTyped(String(page)), [page]);
  const go = (p: number) => onPage(Math.min(pages, Math.max(1, p)));
  return (
    <div className="docs-pagination" data-testid="docs-pagination">
      <label className="docs-page-size">
        <span>{t('docs.pager.rowsPerPage')}</span>
        <select value={pageSize} onChange={(e) => onPageSize(Number(e.target.value))} data-testid="docs-page-size">
          {PAGE_SIZES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <span className="docs-range muted" aria-live="polite">
        {total === 0
          ? t('docs.pager.none')
          : t('docs.pager.range', { first: formatCount(first), last: formatCount(last), total: formatCount(total) })}
      </span>
      <nav className="docs-pager" aria-label={t('docs.pager.pages')}>
        <button type="button" className="icon-button" aria-label={t('docs.pager.first')} disabled={page <= 1} onClick={() => go(1)}>
          «
        </button>
        <button
          type="button"
          className="icon-button"
          aria-label={t('docs.pager.previous')}
          disabled={page <= 1}
          onClick={() => go(page - 1)}
          data-testid="docs-prev-page"
        >
          ‹
        </button>
        <form
          className="docs-page-jump"
          onSubmit={(e) => {
            e.preventDefault();
            const n = Number(typed);
            if (Number.isFinite(n)) go(Math.round(n));
            else setTyped(String(page));
          }}
        >
          <input
            type="number"
            min={1}
            max={pages}
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            onBlur={() => setTyped(String(page))}
            aria-label={t('docs.pager.number', { pages })}
          />
          <span className="muted">{t('docs.pager.of', { pages: formatCount(pages) })}</span>
        </form>
        <button
          type="button"
          className="icon-button"
          aria-label={t('docs.pager.next')}
          disabled={page >= pages}
          onClick={() => go(page + 1)}
          data-testid="docs-next-page"
        >
          ›
        </button>
        <button type="button" className="icon-button" aria-label={t('docs.pager.last')} disabled={page >= pages} onClick={() => go(pages)}>
          »
        </button>
      </nav>
    </div>
  );
}
