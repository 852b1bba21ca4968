// The upload dialog: a drop zone / file picker that stays available while files upload, and the
// list of files with their own progress and result.
import { useRef, useState, type ReactNode } from 'react';
import { Dialog } from '../../components/Dialog';
import { plural } from '../../lib/text';
import { formatBytes, percent } from './format';
import { STATUS_LABELS } from './statusTabs';
import { REJECT_LABELS, isFinished, isRetryable, type UploadItem } from './uploadQueue';
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
  const { state, summary } = uploads;
  const finished = state.items.filter((i) => isFinished(i.phase)).length;
  return (
    <Dialog
      open={open}
      title="Upload documents"
      onClose={onClose}
      wide
      testId="docs-upload-dialog"
      footer={
        <>
          <span className="docs-upload-summary muted" aria-live="polite" data-testid="docs-upload-summary">
            {summary.total === 0
              ? 'No files yet.'
              : [
                  summary.uploading + summary.queued > 0 &&
                    `${summary.uploading + summary.queued} uploading (${percent(summary.loaded, summary.bytes) ?? 0}%)`,
                  summary.processing > 0 && `${summary.processing} processing`,
                  summary.processed > 0 && `${summary.processed} processed`,
                  summary.failed > 0 && `${summary.failed} failed`,
                  summary.rejected > 0 && `${summary.rejected} refused`,
                ]
                  .filter(Boolean)
                  .join(' · ')}
          </span>
          <button type="button" className="btn" onClick={uploads.clearFinished} disabled={finished === 0}>
            Clear finished
          </button>
          <button type="button" className="btn btn-primary" onClick={onClose} data-testid="docs-upload-close">
            {summary.uploading + summary.queued > 0 ? 'Continue in background' : 'Done'}
          </button>
        </>
      }
    >
      <DropZone onFiles={uploads.add} compact={state.items.length > 0} />
      {state.items.length > 0 && (
        <ul className="docs-upload-list" aria-label="Files" data-testid="docs-upload-list">
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
        <strong>Drop files here</strong> or{' '}
        <button type="button" className="link-button" onClick={() => input.current?.click()} data-testid="docs-choose-files">
          choose files
        </button>
      </span>
      <span className="muted docs-dropzone-hint">
        Many at once: PDF, DOCX, PPTX, XLSX, ODT, EPUB, HTML, Markdown, text, code…
      </span>
      <input
        ref={input}
        type="file"
        multiple
        className="visually-hidden"
        tabIndex={-1}
        aria-label="Choose files to upload"
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
  const p = item.phase;
  const trackId = p.kind === 'accepted' || p.kind === 'processed' || p.kind === 'failed' ? p.trackId : null;
  let state: string;
  let detail: ReactNode = null;
  let tone = 'neutral';
  switch (p.kind) {
    case 'queued':
      state = 'Waiting';
      break;
    case 'uploading':
      state = `Uploading ${percent(p.loaded, p.total) ?? 0}%`;
      break;
    case 'accepted':
      state = p.status ? `${STATUS_LABELS[p.status]}…` : 'Uploaded, waiting for the pipeline…';
      tone = 'progress';
      break;
    case 'processed':
      state = 'Processed';
      detail = p.chunks !== null ? plural(p.chunks, 'chunk') : null;
      tone = 'ok';
      break;
    case 'failed':
      state = p.duplicate ? 'Duplicate content' : 'Processing failed';
      detail = p.error;
      tone = 'error';
      break;
    case 'rejected':
      state = REJECT_LABELS[p.reason];
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
              Retry
            </button>
          )}
        </span>
        <button
          type="button"
          className="icon-button docs-upload-remove"
          aria-label={p.kind === 'uploading' ? `Cancel upload of ${item.name}` : `Remove ${item.name} from the list`}
          title={p.kind === 'uploading' ? 'Cancel upload' : 'Remove from the list'}
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
        aria-label={`Upload of ${item.name}`}
      >
        <span className="docs-progress-fill" style={{ width: `${progress}%` }} />
      </span>
      {(detail || trackId) && (
        <div className="docs-upload-detail">
          {detail && <span className={tone === 'error' ? 'docs-upload-error' : 'muted'}>{detail}</span>}
          {trackId && (
            <span className="muted">
              Track{' '}
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
