// The actions above the table.
import { useTranslation } from 'react-i18next';
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
  const { t } = useTranslation();
  return (
    <div className="docs-toolbar" role="toolbar" aria-label={t('docs.toolbar.label')}>
      <div className="docs-toolbar-group">
        <button type="button" className="btn btn-primary" onClick={p.onUpload} data-testid="docs-upload">
          <span aria-hidden="true">⇪</span> {t('docs.toolbar.upload')}
          {p.uploadsRunning > 0 && (
            <span className="docs-pill" aria-label={t('docs.toolbar.uploadsRunning', { count: p.uploadsRunning })}>
              {p.uploadsRunning}
            </span>
          )}
        </button>
        <button type="button" className="btn" onClick={p.onScan} disabled={p.scanning} data-testid="docs-scan" title={t('docs.toolbar.scanTitle')}>
          {p.scanning ? t('docs.toolbar.scanning') : t('docs.toolbar.scan')}
        </button>
        <button
          type="button"
          className="btn"
          onClick={p.onReprocess}
          disabled={p.reprocessing}
          data-testid="docs-reprocess"
          title={t('docs.toolbar.reprocessTitle')}
        >
          {p.reprocessing ? t('docs.toolbar.starting') : t('docs.toolbar.reprocess')}
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
          {p.selectedCount > 0
            ? t('docs.toolbar.deleteSelected', { count: formatCount(p.selectedCount) })
            : t('docs.toolbar.delete')}
        </button>
        <button type="button" className="btn btn-danger-outline" onClick={p.onClear} disabled={p.totalCount === 0} data-testid="docs-clear">
          {t('docs.toolbar.clearAll')}
        </button>
        <button type="button" className="btn" onClick={p.onRefresh} aria-label={t('docs.toolbar.refreshLabel')} title={t('docs.toolbar.refresh')} data-testid="docs-refresh">
          <span className="docs-refresh-icon">{p.fetching ? <Spinner quiet /> : <span aria-hidden="true">⟳</span>}</span>
          <span className="docs-refresh-text">{t('docs.toolbar.refresh')}</span>
        </button>
      </div>
    </div>
  );
}
