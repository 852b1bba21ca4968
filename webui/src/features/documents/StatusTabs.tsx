// The status filter tabs with their counts.
import { useTranslation } from 'react-i18next';
import type { StatusCounts } from '../../api/types';
import { formatCount } from '../../lib/text';
import { statusTabs, type StatusFilter } from './statusTabs';

export function StatusTabs({
  counts,
  current,
  onChange,
}: {
  counts: StatusCounts | null;
  current: StatusFilter;
  onChange: (filter: StatusFilter) => void;
}) {
  const { t } = useTranslation();
  return (
    <div className="docs-tabs" role="group" aria-label={t('docs.tabs.label')} data-testid="docs-status-tabs">
      {statusTabs(counts).map((tab) => (
        <button
          key={tab.filter}
          type="button"
          className={`docs-tab docs-tab-${tab.filter}`}
          aria-pressed={current === tab.filter}
          onClick={() => onChange(tab.filter)}
          data-testid={`docs-tab-${tab.filter}`}
          data-empty={tab.count === 0 && tab.filter !== 'all' ? '' : undefined}
        >
          <span>{tab.label}</span>
          <span className="docs-tab-count">{tab.count === null ? '…' : formatCount(tab.count)}</span>
          {tab.count !== null && <span className="visually-hidden">{` ${t('docs.countWord', { count: tab.count })}`}</span>}
        </button>
      ))}
    </div>
  );
}
