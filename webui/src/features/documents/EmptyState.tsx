// What a fresh knowledge base shows instead of an empty table.
import { Trans, useTranslation } from 'react-i18next';
import { useStore } from '../../lib/store';
import { health } from '../../state/health';

export function EmptyState({ onUpload, onScan, scanning }: { onUpload: () => void; onScan: () => void; scanning: boolean }) {
  const { t } = useTranslation();
  const inputDir = useStore(health, (h) => h.health?.input_directory);
  return (
    <div className="docs-empty" data-testid="docs-empty">
      <div className="docs-empty-icon" aria-hidden="true">
        ⇪
      </div>
      <h2>{t('docs.empty.title')}</h2>
      <p>{t('docs.empty.body')}</p>
      <div className="docs-empty-ways">
        <div>
          <h3>{t('docs.empty.uploadTitle')}</h3>
          <p className="muted">{t('docs.empty.uploadHint')}</p>
          <button type="button" className="btn btn-primary" onClick={onUpload}>
            {t('docs.empty.uploadTitle')}
          </button>
        </div>
        <div>
          <h3>{t('docs.empty.scanTitle')}</h3>
          <p className="muted">
            {inputDir ? (
              <Trans
                t={t}
                i18nKey="docs.empty.scanHintDir"
                values={{ dir: inputDir }}
                components={{ code: <code className="docs-inputdir" /> }}
              />
            ) : (
              t('docs.empty.scanHint')
            )}
          </p>
          <button type="button" className="btn" onClick={onScan} disabled={scanning}>
            {scanning ? t('docs.empty.scanning') : t('docs.empty.scan')}
          </button>
        </div>
      </div>
    </div>
  );
}
