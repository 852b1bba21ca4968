// The upload dialog: a drop zone / file picker that stays available while files upload, and the
// list of files with their own progress and result.
import { useRef, useState, type ReactNode } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Dialog } from '../../components/Dialog';
import { formatBytes, percent } from './format';
import { statusLabels } from './statusTabs';
import { rejectLabels, isFinished, isRetryable, type UploadItem } from './uploadQueue';
import type { Uploads } from './useUploads';

export function UploadDialog({
  open,
  onClose,
  uploads,
  onTrack,
}: {
  open: boolean;
  onClose: () => void;
  uploads: Uploads;
  onTrack: (trackId: string) => void;
}) {
  const { t } = useTranslation();
  const { state, summary } = uploads;
  const finished = state.items.filter((i) => isFinished(i.phase)).length;
  return (
    <Dialog
      open={open}
      title={t('docs.upload.title')}
      onClose={onClose}
      wide
      testId="docs-upload-dialog"
      footer={
        <>
          <span className="docs-upload-summary muted" aria-live="polite" data-testid="docs-upload-summary">
            {summary.total === 0
              ? t('docs.upload.noFiles')
              : [
                  summary.uploading + summary.queued > 0 &&
                    t('docs.upload.uploading', {
                      count: summary.uploading + summary.queued,
                      percent: percent(summary.loaded, summary.bytes) ?? 0,
                    }),
                  summary.processing > 0 && t('docs.upload.processing', { count: summary.processing }),
                  summary.processed > 0 && t('docs.upload.processed', { count: summary.processed }),
                  summary.failed > 0 && t('docs.upload.failed', { count: summary.failed }),
                  summary.rejected > 0 && t('docs.upload.refused', { count: summary.rejected }),
                ]
                  .filter(Boolean)
                  .join(' · ')}
          </span>
          <button type="button" className="btn" onClick={uploads.clearFinished} disabled={finished === 0}>
            {t('docs.upload.clearFinished')}
          </button>
          <button type="button" className="btn btn-primary" onClick={onClose} data-testid="docs-upload-close">
            {summary.uploading + summary.queued > 0 ? t('docs.upload.background') : t('docs.upload.done')}
          </button>
        </>
      }
    >
      <DropZone onFiles={uploads.add} compact={state.items.length > 0} />
      {state.items.length > 0 && (
        <ul className="docs-upload-list" aria-label={t('docs.upload.files')} data-testid="docs-upload-list">
          {state.items.map((item) => (
            <UploadRow key={item.id} item={item} uploads={uploads} onTrack={onTrack} />
          ))}
        </ul>
      )}
    </Dialog>
  );
}

/** A drop target that is also a file picker (click, Enter or Space). */
export function DropZone({ onFiles, compact }: { onFiles: (files: File[]) => void; compact?: boolean }) {
  const { t } = useTranslation();
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  return (
    <div
      className={['docs-dropzone', compact ? 'docs-dropzone-compact' : '', over ? 'docs-dropzone-over' : ''].join(' ').trim()}
      onDragOver={(e) => {
        if (!e.dataTransfer.types.includes('Files')) return;
        e.preventDefault();
        e.stopPropagation();
        e.dataTransfer.dropEffect = 'copy';
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        e.stopPropagation();
        setOver(false);
        const files = [...e.dataTransfer.files];
        if (files.length > 0) onFiles(files);
      }}
      data-testid="docs-dropzone"
    >
      <span className="docs-dropzone-icon" aria-hidden="true">
        ⇪
      </span>
      <span>
        <Trans
          t={t}
          i18nKey="docs.upload.dropHere"
          components={{
            strong: <strong />,
            button: <button type="button" className="link-button" onClick={() => input.current?.click()} data-testid="docs-choose-files" />,
          }}
        />
      </span>
      <span className="muted docs-dropzone-hint">
        {t('docs.upload.hint')}
      </span>
      <input
        ref={input}
        type="file"
        multiple
        className="visually-hidden"
        tabIndex={-1}
        aria-label={t('docs.upload.choose')}
        data-testid="docs-file-input"
        onChange={(e) => {
          const files = [...(e.target.files ?? [])];
          e.target.value = '';
          if (files.length > 0) onFiles(files);
        }}
      />
    </div>
  );
}

function UploadRow({ item, uploads, onTrack }: { item: UploadItem; uploads: Uploads; onTrack: (trackId: string) => void }) {
  const { t } = useTranslation();
  const p = item.phase;
  const trackId = p.kind === 'accepted' || p.kind === 'processed' || p.kind === 'failed' ? p.trackId : null;
  let state: string;
  let detail: ReactNode = null;
  let tone = 'neutral';
  switch (p.kind) {
    case 'queued':
      state = t('docs.upload.waiting');
      break;
    case 'uploading':
      state = t('docs.upload.uploadingPercent', { percent: percent(p.loaded, p.total) ?? 0 });
      break;
    case 'accepted':
      state = p.status ? t('docs.upload.statusRunning', { status: statusLabels()[p.status] }) : t('docs.upload.waitingPipeline');
      tone = 'progress';
      break;
    case 'processed':
      state = t('docs.upload.stateProcessed');
      detail = p.chunks !== null ? t('docs.upload.chunks', { count: p.chunks }) : null;
      tone = 'ok';
      break;
    case 'failed':
      state = p.duplicate ? t('docs.upload.duplicate') : t('docs.upload.stateFailed');
      detail = p.error;
      tone = 'error';
      break;
    case 'rejected':
      state = rejectLabels()[p.reason];
      detail = p.message;
      tone = 'error';
      break;
  }
  // a refused upload shows a full red bar: the attempt is over
  const progress = p.kind === 'uploading' ? (percent(p.loaded, p.total) ?? 0) : p.kind === 'queued' ? 0 : 100;
  return (
    <li className={`docs-upload-item docs-upload-tone-${tone}`} data-testid="docs-upload-item" data-file={item.name} data-phase={p.kind}>
      <div className="docs-upload-head">
        <span className="docs-upload-name" title={item.name}>
          {item.name}
        </span>
        <span className="docs-upload-meta">
          <span className="muted docs-upload-size">{formatBytes(item.size)}</span>
          <span className="docs-upload-state" data-testid="docs-upload-state">
            {state}
          </span>
          {p.kind === 'rejected' && (isRetryable(p.reason) || p.reason === 'duplicate') && (
            <button type="button" className="btn btn-small" onClick={() => uploads.retry(item.id)}>
              {t('docs.upload.retry')}
            </button>
          )}
        </span>
        <button
          type="button"
          className="icon-button docs-upload-remove"
          aria-label={p.kind === 'uploading' ? t('docs.upload.cancelOf', { name: item.name }) : t('docs.upload.removeOf', { name: item.name })}
          title={p.kind === 'uploading' ? t('docs.upload.cancel') : t('docs.upload.remove')}
          onClick={() => uploads.remove(item.id)}
        >
          ×
        </button>
      </div>
      <span
        className="docs-progress-track docs-upload-progress"
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={progress}
        aria-label={t('docs.upload.progressOf', { name: item.name })}
      >
        <span className="docs-progress-fill" style={{ width: `${progress}%` }} />
      </span>
      {(detail || trackId) && (
        <div className="docs-upload-detail">
          {detail && <span className={tone === 'error' ? 'docs-upload-error' : 'muted'}>{detail}</span>}
          {trackId && (
            <span className="muted">
              {t('docs.upload.track')}{' '}
              <button type="button" className="link-button docs-mono" onClick={() => onTrack(trackId)} data-testid="docs-upload-track">
                {trackId}
              </button>
            </span>
          )}
        </div>
      )}
    </li>
  );
}
