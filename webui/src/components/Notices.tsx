import { useStore } from '../lib/store';
import { useTranslation } from 'react-i18next';
import { dismiss, notices } from '../state/notices';

export function Notices() {
  const { t } = useTranslation();
  const list = useStore(notices);
  return (
    <div className="notices" aria-live="polite">
      {list.map((n) => (
        <div key={n.id} className={`notice notice-${n.kind}`} role={n.kind === 'error' ? 'alert' : 'status'}>
          <span>{n.text}</span>
          <button type="button" className="icon-button" aria-label={t('common.dismiss')} onClick={() => dismiss(n.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
