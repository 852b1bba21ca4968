// Server status from /health: versions, directories, configuration, pipeline flags.
import { Dialog } from '../components/Dialog';
import { useTranslation } from 'react-i18next';
import { formatDecimal } from '../i18n/format';
import { useStore } from '../lib/store';
import { health } from '../state/health';

export function StatusDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const h = useStore(health);
  const data = h.health;
  const config = (data?.configuration ?? {}) as Record<string, unknown>;
  return (
    <Dialog open={open} title={t('header.serverStatus')} onClose={onClose} wide testId="status-dialog">
      {h.error && (
        <p className="form-error" role="alert">
          {t('status.lastCheckFailed', { error: h.error })}
        </p>
      )}
      {!data ? (
        <p className="muted">{t('status.noAnswer')}</p>
      ) : (
        <div className="status-grid">
          <section>
            <h3>{t('status.server')}</h3>
            <dl className="kv">
              <Row k={t('status.status')} v={data.status} />
              <Row k={t('status.coreVersion')} v={data.core_version} />
              <Row k={t('status.apiVersion')} v={data.api_version} />
              <Row k={t('status.authentication')} v={data.auth_mode} />
              <Row k={t('status.workingDirectory')} v={data.working_directory} />
              <Row k={t('status.inputDirectory')} v={data.input_directory} />
              <Row k={t('status.workspace')} v={config.workspace} />
            </dl>
            <h3>{t('status.pipeline')}</h3>
            <dl className="kv">
              <Row k={t('status.busy')} v={data.pipeline_busy} />
              <Row k={t('status.active')} v={data.pipeline_active} />
              <Row k={t('status.scanning')} v={data.pipeline_scanning} />
              <Row k={t('status.destructive')} v={data.pipeline_destructive_busy} />
              <Row k={t('status.pendingEnqueues')} v={data.pipeline_pending_enqueues} />
            </dl>
          </section>
          <section>
            <h3>{t('status.configuration')}</h3>
            <dl className="kv">
              {Object.entries(config).map(([k, v]) => (
                <Row key={k} k={k} v={v} />
              ))}
            </dl>
          </section>
        </div>
      )}
    </Dialog>
  );
}

function Row({ k, v }: { k: string; v: unknown }) {
  const { t } = useTranslation();
  if (v === undefined) return null;
  const text =
    v === null
      ? '—'
      : typeof v === 'number'
        ? formatDecimal(v)
        : typeof v === 'boolean'
          ? v
            ? t('common.yes')
            : t('common.no')
          : typeof v === 'object'
            ? JSON.stringify(v)
            : String(v);
  return (
    <>
      <dt>{k}</dt>
      <dd>{text}</dd>
    </>
  );
}
