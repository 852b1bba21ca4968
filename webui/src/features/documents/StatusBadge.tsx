import type { DocStatusResponse } from '../../api/types';
import { statusLabels } from './statusTabs';

export function StatusBadge({ status }: { status: DocStatusResponse['status'] | string }) {
  const label = (statusLabels() as Record<string, string>)[status] ?? status;
  return (
    <span className={`badge badge-${status}`} data-status={status}>
      {label}
    </span>
  );
}
