// "Clear all": typed confirmation, optionally also the LLM cache.
import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { describeError } from '../../api/errors';
import { server } from '../../app/services';
import { Confirm } from '../../components/Confirm';
import { notify } from '../../state/notices';

export function ClearDialog({ open, onClose, onCleared }: { open: boolean; onClose: () => void; onCleared: () => void }) {
  const { t } = useTranslation();
  const [alsoCache, setAlsoCache] = useState(false);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    try {
      const answer = await server.clearDocuments();
      if (answer.status === 'success' || answer.status === 'partial_success') {
        notify(answer.status === 'success' ? 'success' : 'error', answer.message || t('docs.clear.done'));
        if (alsoCache) {
          try {
            const cache = await server.clearCache();
            notify(cache.status === 'success' ? 'success' : 'error', cache.message || t('docs.clear.cacheDone'));
          } catch (e) {
            notify('error', t('docs.clear.cacheFailed', { error: describeError(e) }));
          }
        }
        onCleared();
      } else {
        notify('error', t('docs.clear.refused', { status: answer.status, message: answer.message }));
      }
    } catch (e) {
      notify('error', t('docs.clear.failed', { error: describeError(e) }));
    } finally {
      setBusy(false);
      onClose();
    }
  };
  return (
    <Confirm
      open={open}
      title={t('docs.clear.title')}
      confirmLabel={busy ? t('docs.clear.clearing') : t('docs.clear.confirm')}
      danger
      typed="clear"
      busy={busy}
      onConfirm={() => void run()}
      onClose={onClose}
    >
      <p>
        <Trans t={t} i18nKey="docs.clear.body" components={{ strong: <strong /> }} />
      </p>
      <label className="checkbox">
        <input type="checkbox" checked={alsoCache} onChange={(e) => setAlsoCache(e.target.checked)} data-testid="docs-clear-cache" />
        {t('docs.clear.alsoCache')}
      </label>
    </Confirm>
  );
}
