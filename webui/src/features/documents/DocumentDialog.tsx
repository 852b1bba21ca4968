// Every field of one document: status, error, duplicate origin, track, metadata.
import { Fragment } from 'react';
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
  const doc = detail?.kind === 'found' ? detail.doc : null;
  const title = doc ? doc.file_path || doc.id : 'Document';
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
              Delete…
            </button>
            <button type="button" className="btn btn-primary" onClick={onClose}>
              Close
            </button>
          </>
        ) : undefined
      }
    >
      {detail?.kind === 'loading' && <Spinner label={`Looking for document ${detail.docId}…`} />}
      {detail?.kind === 'missing' && (
        <p className="muted" data-testid="docs-detail-missing">
          No document <code>{detail.docId}</code> was found. It may have been deleted (or it is beyond the 1000 documents the
          server lists at once).
        </p>
      )}
      {detail?.kind === 'error' && (
        <p className="form-error" role="alert">
          Could not look up <code>{detail.docId}</code>: {detail.message}
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
  const meta = doc.metadata ?? {};
  const original = typeof meta.original_doc_id === 'string' ? meta.original_doc_id : null;
  return (
    <div className="docs-detail" data-testid="docs-detail" data-doc-id={doc.id}>
      {doc.error_msg && (
        <div className="form-error docs-detail-error" role="note">
          <strong>Error</strong>
          <pre>{doc.error_msg}</pre>
        </div>
      )}
      {isDuplicate(doc) && (
        <p className="docs-detail-dup">
          <span className="badge">duplicate</span> This upload has the same content as{' '}
          {original ? (
            <button type="button" className="link-button docs-mono" onClick={() => onOpenId(original)}>
              {original}
            </button>
          ) : (
            'another document'
          )}
          {typeof meta.original_track_id === 'string' && meta.original_track_id && (
            <>
              {' '}
              (track{' '}
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
        <dt>Status</dt>
        <dd>
          <StatusBadge status={doc.status} />
        </dd>
        <dt>File</dt>
        <dd>{doc.file_path}</dd>
        <dt>ID</dt>
        <dd>{doc.id}</dd>
        <dt>Track ID</dt>
        <dd>
          {doc.track_id ? (
            <button type="button" className="link-button" onClick={() => onTrack(doc.track_id!)}>
              {doc.track_id}
            </button>
          ) : (
            '—'
          )}
        </dd>
        <dt>Length</dt>
        <dd>{formatCount(doc.content_length)} characters</dd>
        <dt>Chunks</dt>
        <dd>{formatCount(doc.chunks_count)}</dd>
        <dt>Created</dt>
        <dd>{formatDateTimeLong(doc.created_at)}</dd>
        <dt>Updated</dt>
        <dd>{formatDateTimeLong(doc.updated_at)}</dd>
      </dl>
      <h3 className="docs-detail-h">Summary</h3>
      <p className="docs-detail-summary">{doc.content_summary || <span className="muted">—</span>}</p>
      <h3 className="docs-detail-h">Metadata</h3>
      {Object.keys(meta).length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <dl className="kv">
          {Object.entries(meta).map(([k, v]) => (
            <Fragment key={k}>
              <dt>{k}</dt>
              <dd>{metadataText(v)}</dd>
            </Fragment>
          ))}
        </dl>
      )}
    </div>
  );
}
