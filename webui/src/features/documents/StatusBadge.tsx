import type { DocStatusResponse } from '../../api/types';
import { STATUS_LABELS } from './statusTabs';

export function StatusBadge({ status }: { status: DocStatusResponse['status'] | string }) {
  const label = (STATUS_LABELS as Record<string, string>)[status] ?? status;
  return (
    <span className={`badge badge-${status}`} data-status={status}>
      {label}
    </span>
  );
}
