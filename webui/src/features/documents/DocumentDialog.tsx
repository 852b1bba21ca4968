// Every field of one document: status, error, duplicate origin, track, metadata.
import { Fragment } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { DocStatusResponse } from '../../api/types';
import { Dialog } from '../../components/Dialog';
import { Spinner } from '../../components/Spinner';
import { formatCount } from '../../lib/text';
import { formatDateTimeLong, metadataText } from './format';
import { StatusBadge } from './StatusBadge';
import { isDuplicate } from './uploadQueue';

export type DetailState =
  | { kind: 'loading'; docId: string }
  | { kind: 'found'; doc: DocStatusResponse }
  | { kind: 'missing'; docId: string }
  | { kind: 'error'; docId: string; message: string };

export function DocumentDialog({
  detail,
  onClose,
  onTrack,
  onOpenId,
  onDelete,
}: {
  detail: DetailState | null;
  onClose: () => void;
  onTrack: (trackId: string) => void;
  onOpenId: (docId: string) => void;
  onDelete: (doc: DocStatusResponse) => void;
}) {
  const { t } = useTranslation();
  const doc = detail?.kind === 'found' ? detail.doc : null;
  const title = doc ? doc.file_path || doc.id : t('docs.detail.title');
  return (
    <Dialog
      open={detail !== null}
      title={title}
      onClose={onClose}
      wide
      testId="docs-detail-dialog"
      footer={
        doc ? (
          <>
            <button type="button" className="btn btn-danger-outline" onClick={() => onDelete(doc)}>
              {t('docs.detail.delete')}
            </button>
            <button type="button" className="btn btn-primary" onClick={onClose}>
              {t('common.close')}
            </button>
          </>
        ) : undefined
      }
    >
      {detail?.kind === 'loading' && <Spinner label={t('docs.detail.looking', { id: detail.docId })} />}
      {detail?.kind === 'missing' && (
        <p className="muted" data-testid="docs-detail-missing">
          <Trans t={t} i18nKey="docs.detail.missing" values={{ id: detail.docId }} components={{ code: <code /> }} />
        </p>
      )}
      {detail?.kind === 'error' && (
        <p className="form-error" role="alert">
          <Trans
            t={t}
            i18nKey="docs.detail.lookupFailed"
            values={{ id: detail.docId, error: detail.message }}
            components={{ code: <code /> }}
          />
        </p>
      )}
      {doc && <DocumentFields doc={doc} onTrack={onTrack} onOpenId={onOpenId} />}
    </Dialog>
  );
}

function DocumentFields({
  doc,
  onTrack,
  onOpenId,
}: {
  doc: DocStatusResponse;
  onTrack: (trackId: string) => void;
  onOpenId: (docId: string) => void;
}) {
  const { t } = useTranslation();
  const meta = doc.metadata ?? {};
  const original = typeof meta.original_doc_id === 'string' ? meta.original_doc_id : null;
  return (
    <div className="docs-detail" data-testid="docs-detail" data-doc-id={doc.id}>
      {doc.error_msg && (
        <div className="form-error docs-detail-error" role="note">
          <strong>{t('docs.detail.error')}</strong>
          <pre>{doc.error_msg}</pre>
        </div>
      )}
      {isDuplicate(doc) && (
        <p className="docs-detail-dup">
          <span className="badge">{t('docs.detail.duplicate')}</span> {t('docs.detail.sameAs')}{' '}
          {original ? (
            <button type="button" className="link-button docs-mono" onClick={() => onOpenId(original)}>
              {original}
            </button>
          ) : (
            t('docs.detail.anotherDocument')
          )}
          {typeof meta.original_track_id === 'string' && meta.original_track_id && (
            <>
              {' '}
              ({t('docs.detail.track')}{' '}
              <button type="button" className="link-button docs-mono" onClick={() => onTrack(String(meta.original_track_id))}>
                {String(meta.original_track_id)}
              </button>
              )
            </>
          )}
          .
        </p>
      )}
      <dl className="kv">
        <dt>{t('docs.detail.status')}</dt>
        <dd>
          <StatusBadge status={doc.status} />
        </dd>
        <dt>{t('docs.detail.file')}</dt>
        <dd>{doc.file_path}</dd>
        <dt>{t('docs.detail.id')}</dt>
        <dd>{doc.id}</dd>
        <dt>{t('docs.detail.trackId')}</dt>
        <dd>
          {doc.track_id ? (
            <button type="button" className="link-button" onClick={() => onTrack(doc.track_id!)}>
              {doc.track_id}
            </button>
          ) : (
            '—'
          )}
        </dd>
        <dt>{t('docs.detail.length')}</dt>
        <dd>{t('docs.detail.characters', { count: doc.content_length })}</dd>
        <dt>{t('docs.detail.chunks')}</dt>
        <dd>{formatCount(doc.chunks_count)}</dd>
        <dt>{t('docs.detail.created')}</dt>
        <dd>{formatDateTimeLong(doc.created_at)}</dd>
        <dt>{t('docs.detail.updated')}</dt>
        <dd>{formatDateTimeLong(doc.updated_at)}</dd>
      </dl>
      <h3 className="docs-detail-h">{t('docs.detail.summary')}</h3>
      <p className="docs-detail-summary">{doc.content_summary || <span className="muted">—</span>}</p>
      <h3 className="docs-detail-h">{t('docs.detail.metadata')}</h3>
      {Object.keys(meta).length === 0 ? (
        <p className="muted">{t('common.none')}</p>
      ) : (
        <dl className="kv">
          {Object.entries(meta).map(([k, v]) => (
            <Fragment key={k}>
              <dt>{k}</dt>
              <dd>{metadataText(v, k)}</dd>
            </Fragment>
          ))}
        </dl>
      )}
    </div>
  );
}
