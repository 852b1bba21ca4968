// The actions above the table.
import { Spinner } from '../../components/Spinner';
import { formatCount } from '../../lib/text';

export interface ToolbarProps {
  selectedCount: number;
  failedCount: number;
  totalCount: number;
  uploadsRunning: number;
  scanning: boolean;
  reprocessing: boolean;
  fetching: boolean;
  onUpload: () => void;
  onScan: () => void;
  onReprocess: () => void;
  onDelete: () => void;
  onClear: () => void;
  onRefresh: () => void;
}

export function Toolbar(p: ToolbarProps) {
  return (
    <div className="docs-toolbar" role="toolbar" aria-label="Document actions">
      <div className="docs-toolbar-group">
        <button type="button" className="btn btn-primary" onClick={p.onUpload} data-testid="docs-upload">
          <span aria-hidden="true">⇪</span> Upload
          {p.uploadsRunning > 0 && (
            <span className="docs-pill" aria-label={`${p.uploadsRunning} uploads running`}>
              {p.uploadsRunning}
            </span>
          )}
        </button>
        <button type="button" className="btn" onClick={p.onScan} disabled={p.scanning} data-testid="docs-scan" title="Index new files of the input folder">
          {p.scanning ? 'Scanning…' : 'Scan'}
        </button>
        <button
          type="button"
          className="btn"
          onClick={p.onReprocess}
          disabled={p.reprocessing}
          data-testid="docs-reprocess"
          title="Run the pipeline again on failed and unfinished documents"
        >
          {p.reprocessing ? 'Starting…' : 'Reprocess failed'}
          {p.failedCount > 0 && <span className="docs-pill docs-pill-danger">{formatCount(p.failedCount)}</span>}
        </button>
      </div>
      <div className="docs-toolbar-group">
        <button
          type="button"
          className="btn btn-danger-outline"
          onClick={p.onDelete}
          disabled={p.selectedCount === 0}
          data-testid="docs-delete-selected"
        >
          Delete{p.selectedCount > 0 ? ` ${formatCount(p.selectedCount)} selected` : ''}
        </button>
        <button type="button" className="btn btn-danger-outline" onClick={p.onClear} disabled={p.totalCount === 0} data-testid="docs-clear">
          Clear all
        </button>
        <button type="button" className="btn" onClick={p.onRefresh} aria-label="Refresh the list" title="Refresh" data-testid="docs-refresh">
          <span className="docs-refresh-icon">{p.fetching ? <Spinner quiet /> : <span aria-hidden="true">⟳</span>}</span>
          <span className="docs-refresh-text">Refresh</span>
        </button>
      </div>
    </div>
  );
}
