// The Documents page: status tabs, the paginated table, the live pipeline panel, uploads, scan,
// reprocess, delete, clear, track status and document details.
import { useCallback, useEffect, useReducer, useRef, useState, type DragEvent } from 'react';
import { t } from '../../i18n';
import { useTranslation } from 'react-i18next';
import { describeError } from '../../api/errors';
import type { DocStatusResponse, SortField } from '../../api/types';
import { server } from '../../app/services';
import { Confirm } from '../../components/Confirm';
import { Spinner } from '../../components/Spinner';
import { local, readJson, writeJson } from '../../lib/storage';
import { useStore } from '../../lib/store';
import { healthRefresh } from '../../state/health';
import { documentFocus } from '../../state/navigation';
import { notify } from '../../state/notices';
import { ClearDialog } from './ClearDialog';
import { DeleteDialog } from './DeleteDialog';
import { findDocument } from './docLookup';
import { DocumentDialog, type DetailState } from './DocumentDialog';
import { DocumentsTable } from './DocumentsTable';
import { EmptyState } from './EmptyState';
import { Pagination } from './Pagination';
import { PipelinePanel } from './PipelinePanel';
import { statusLabels, totalOf } from './statusTabs';
import { StatusTabs } from './StatusTabs';
import { pruneSelection, restoreQuery, tableReducer, togglePage, toggleSelected, type TableQuery } from './tableState';
import { Toolbar } from './Toolbar';
import { TrackDialog } from './TrackDialog';
import { UploadDialog } from './UploadDialog';
import { useDocuments } from './useDocuments';
import { useFollowWindow } from './useFollowWindow';
import { usePipeline } from './usePipeline';
import { usePageVisible } from './usePolling';
import { useUploads } from './useUploads';
import './documents.css';
import './docs-pipeline.css';
import './docs-table.css';
import './docs-states.css';
import './docs-dialogs.css';
import './docs-narrow.css';

const QUERY_KEY = 'lightrag-rs.documents.table';
const PANEL_KEY = 'lightrag-rs.documents.pipeline-open';

export function DocumentsPage({ active }: { active: boolean }) {
  useTranslation();
  const visible = usePageVisible();
  const [query, dispatch] = useReducer(tableReducer, undefined, () =>
    restoreQuery(readJson<Partial<TableQuery> | null>(local, QUERY_KEY, null)),
  );
  useEffect(() => {
    writeJson(local, QUERY_KEY, { pageSize: query.pageSize, sortField: query.sortField, sortDirection: query.sortDirection });
  }, [query.pageSize, query.sortField, query.sortDirection]);

  const [following, follow] = useFollowWindow();
  const pipeline = usePipeline(active, visible, following);
  const docs = useDocuments(query, active, visible, pipeline.working || following);
  const rows = docs.data?.documents ?? [];
  const counts = docs.data?.status_counts ?? null;
  const total = totalOf(counts);

  // the pipeline just finished: one more refresh shows the final statuses
  const wasWorking = useRef(false);
  useEffect(() => {
    if (wasWorking.current && !pipeline.working) docs.reload();
    wasWorking.current = pipeline.working;
  }, [pipeline.working, docs.reload]);

  const [selected, setSelected] = useState<ReadonlySet<string>>(() => new Set());
  const rowIds = rows.map((d) => d.id).join('\n');
  useEffect(() => {
    setSelected((s) => pruneSelection(s, rowIds ? rowIds.split('\n') : []));
  }, [rowIds]);
  const totalPages = docs.data?.pagination.total_pages;
  useEffect(() => {
    if (totalPages !== undefined) dispatch({ type: 'clampPage', totalPages });
  }, [totalPages]);

  const afterChange = useCallback(() => {
    follow();
    docs.reload();
    pipeline.refresh();
    healthRefresh.set((n) => n + 1);
  }, [follow, docs.reload, pipeline.refresh]);

  const uploads = useUploads({ active, visible, onAccepted: afterChange, onSettled: afterChange });
  const uploadsRunning = uploads.summary.queued + uploads.summary.uploading;

  const [uploadOpen, setUploadOpen] = useState(false);
  const [deleteDocs, setDeleteDocs] = useState<DocStatusResponse[] | null>(null);
  const [clearOpen, setClearOpen] = useState(false);
  const [cancelOpen, setCancelOpen] = useState(false);
  const [trackId, setTrackId] = useState<string | null>(null);
  const [detail, setDetail] = useState<DetailState | null>(null);
  const [focusId, setFocusId] = useState<string | null>(null);
  const [scanning, setScanning] = useState(false);
  const [reprocessing, setReprocessing] = useState(false);
  const [cancelling, setCancelling] = useState(false);
  const [panelOpen, setPanelOpen] = useState(() => {
    const saved = local.getItem(PANEL_KEY);
    if (saved !== null) return saved !== 'false';
    // phones start with the compact bar; the log is one tap away
    return !window.matchMedia?.('(max-width: 720px)').matches;
  });
  const togglePanel = () =>
    setPanelOpen((o) => {
      local.setItem(PANEL_KEY, String(!o));
      return !o;
    });

  // ---- document details (also for showDocument() from other pages) ----
  const lookup = useRef(0);
  const rowsRef = useRef(rows);
  rowsRef.current = rows;
  const openById = useCallback((docId: string, filePath?: string) => {
    const n = ++lookup.current;
    setFocusId(docId);
    setDetail({ kind: 'loading', docId });
    findDocument(docId, rowsRef.current, () => server.allDocuments(), filePath)
      .then((doc) => {
        if (n === lookup.current) setDetail(doc ? { kind: 'found', doc } : { kind: 'missing', docId });
      })
      .catch((e: unknown) => {
        if (n === lookup.current) setDetail({ kind: 'error', docId, message: describeError(e) });
      });
  }, []);
  const openDoc = useCallback((doc: DocStatusResponse) => {
    lookup.current++;
    setFocusId(doc.id);
    setDetail({ kind: 'found', doc });
  }, []);
  const focus = useStore(documentFocus);
  useEffect(() => {
    if (!focus || !active) return;
    documentFocus.set(null);
    if (focus.doc) openDoc(focus.doc);
    else openById(focus.docId, focus.filePath);
  }, [focus, active, openById, openDoc]);
  // the dialog shows the latest version of its document when the table has it
  const liveDetail: DetailState | null =
    detail?.kind === 'found' ? { kind: 'found', doc: rows.find((d) => d.id === detail.doc.id) ?? detail.doc } : detail;

  // ---- actions ----
  const scan = async () => {
    setScanning(true);
    try {
      const answer = await server.scan();
      notify(answer.status === 'scanning_started' ? 'success' : 'info', answer.message || answer.status);
      afterChange();
    } catch (e) {
      notify('error', t('docs.page.scanFailed', { error: describeError(e) }));
    } finally {
      setScanning(false);
    }
  };
  const reprocess = async () => {
    setReprocessing(true);
    try {
      const answer = await server.reprocessFailed();
      notify(answer.status === 'reprocessing_started' ? 'success' : 'info', answer.message || answer.status);
      afterChange();
    } catch (e) {
      notify('error', t('docs.page.reprocessFailed', { error: describeError(e) }));
    } finally {
      setReprocessing(false);
    }
  };
  const cancelPipeline = async () => {
    setCancelOpen(false);
    setCancelling(true);
    try {
      const answer = await server.cancelPipeline();
      notify(answer.status === 'cancellation_requested' ? 'success' : 'info', answer.message || answer.status);
      pipeline.refresh();
    } catch (e) {
      notify('error', t('docs.page.cancelFailed', { error: describeError(e) }));
    } finally {
      setCancelling(false);
    }
  };

  // ---- drag and drop anywhere on the page ----
  const [dragging, setDragging] = useState(false);
  const hasFiles = (e: DragEvent) => e.dataTransfer.types.includes('Files');

  const empty = docs.data !== null && total === 0;
  return (
    <div
      className="docs-page"
      data-testid="documents-page"
      onDragEnter={(e) => {
        // not while a dialog is open (the upload dialog has its own drop zone)
        if (hasFiles(e) && !(e.target instanceof Element && e.target.closest('dialog'))) setDragging(true);
      }}
    >
      <Toolbar
        selectedCount={selected.size}
        failedCount={counts?.failed ?? 0}
        totalCount={total}
        uploadsRunning={uploadsRunning}
        scanning={scanning}
        reprocessing={reprocessing}
        fetching={docs.fetching}
        onUpload={() => setUploadOpen(true)}
        onScan={() => void scan()}
        onReprocess={() => void reprocess()}
        onDelete={() => setDeleteDocs(rows.filter((d) => selected.has(d.id)))}
        onClear={() => setClearOpen(true)}
        onRefresh={() => {
          docs.reload();
          pipeline.refresh();
        }}
      />
      <PipelinePanel
        status={pipeline.status}
        error={pipeline.error}
        expanded={panelOpen}
        onToggle={togglePanel}
        onCancel={() => setCancelOpen(true)}
        cancelling={cancelling}
      />
      {docs.error && docs.data && (
        <p className="docs-banner" role="alert">
          {t('docs.page.refreshFailed', { error: docs.error })}{' '}
          <button type="button" className="link-button" onClick={docs.reload}>
            {t('common.retry')}
          </button>
        </p>
      )}
      {docs.error && !docs.data ? (
        <div className="docs-state" role="alert" data-testid="docs-error">
          <h2>{t('docs.page.loadFailed')}</h2>
          <p className="form-error">{docs.error}</p>
          <button type="button" className="btn btn-primary" onClick={docs.reload}>
            {t('common.tryAgain')}
          </button>
        </div>
      ) : docs.loading ? (
        <div className="docs-state" data-testid="docs-loading">
          <Spinner label={t('docs.page.loading')} />
          <span className="muted">{t('docs.page.loading')}</span>
        </div>
      ) : empty ? (
        <EmptyState onUpload={() => setUploadOpen(true)} onScan={() => void scan()} scanning={scanning} />
      ) : (
        <div className="docs-table-area">
          <div className="docs-table-head">
            <StatusTabs counts={counts} current={query.filter} onChange={(filter) => dispatch({ type: 'filter', filter })} />
            <MobileSort query={query} onSort={(field) => dispatch({ type: 'sort', field })} />
          </div>
          <div className="table-wrap docs-table-wrap">
            <DocumentsTable
              docs={rows}
              selected={selected}
              sortField={query.sortField}
              sortDirection={query.sortDirection}
              focusId={focusId}
              onSort={(field) => dispatch({ type: 'sort', field })}
              onToggle={(id) => setSelected((s) => toggleSelected(s, id))}
              onTogglePage={() => setSelected((s) => togglePage(s, rows.map((d) => d.id)))}
              onOpen={openDoc}
              onOpenId={(id) => openById(id)}
              onTrack={setTrackId}
            />
            {rows.length === 0 && (
              <p className="docs-none muted" data-testid="docs-none">
                {query.filter === 'all'
                  ? t('docs.page.noneOnPage')
                  : t('docs.page.noneWithStatus', { status: statusLabels()[query.filter] })}
              </p>
            )}
          </div>
          <Pagination
            info={docs.data?.pagination ?? null}
            page={query.page}
            pageSize={query.pageSize}
            onPage={(page) => dispatch({ type: 'page', page })}
            onPageSize={(pageSize) => dispatch({ type: 'pageSize', pageSize })}
          />
        </div>
      )}

      {dragging && (
        <div
          className="docs-drop-overlay"
          onDragOver={(e) => {
            e.preventDefault();
            e.dataTransfer.dropEffect = 'copy';
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={(e) => {
            e.preventDefault();
            setDragging(false);
            const files = [...e.dataTransfer.files];
            if (files.length > 0) {
              uploads.add(files);
              setUploadOpen(true);
            }
          }}
        >
          <div className="docs-drop-message">
            <span aria-hidden="true">⇪</span> {t('docs.page.drop')}
          </div>
        </div>
      )}

      <UploadDialog open={uploadOpen} onClose={() => setUploadOpen(false)} uploads={uploads} onTrack={setTrackId} />
      <DeleteDialog
        docs={deleteDocs}
        onClose={() => setDeleteDocs(null)}
        onDeleted={() => {
          const gone = new Set((deleteDocs ?? []).map((d) => d.id));
          setSelected((s) => new Set([...s].filter((id) => !gone.has(id))));
          setDeleteDocs(null);
          setDetail(null);
          afterChange();
        }}
      />
      <ClearDialog
        open={clearOpen}
        onClose={() => setClearOpen(false)}
        onCleared={() => {
          setSelected(new Set());
          afterChange();
        }}
      />
      <Confirm
        open={cancelOpen}
        title={t('docs.page.stopTitle')}
        confirmLabel={t('docs.page.stopConfirm')}
        danger
        onConfirm={() => void cancelPipeline()}
        onClose={() => setCancelOpen(false)}
      >
        <p>{t('docs.page.stopBody')}</p>
      </Confirm>
      <DocumentDialog
        detail={liveDetail}
        onClose={() => {
          setDetail(null);
          lookup.current++;
        }}
        onTrack={setTrackId}
        onOpenId={(id) => openById(id)}
        onDelete={(doc) => setDeleteDocs([doc])}
      />
      <TrackDialog
        trackId={trackId}
        active={active}
        visible={visible}
        onClose={() => setTrackId(null)}
        onOpen={openDoc}
      />
    </div>
  );
}

function sortLabels(): Record<SortField, string> {
  return {
    updated_at: t('docs.detail.updated'),
    created_at: t('docs.detail.created'),
    file_path: t('docs.table.fileName'),
    id: t('docs.detail.id'),
  };
}

/** Sorting for the phone layout, where the column headers are hidden. */
function MobileSort({ query, onSort }: { query: TableQuery; onSort: (field: SortField) => void }) {
  const labels = sortLabels();
  return (
    <div className="docs-mobile-sort">
      <label>
        <span className="visually-hidden">{t('docs.page.sortBy')}</span>
        <select value={query.sortField} onChange={(e) => onSort(e.target.value as SortField)} aria-label={t('docs.page.sortBy')}>
          {(Object.keys(labels) as SortField[]).map((f) => (
            <option key={f} value={f}>
              {t('docs.page.sortOption', { field: labels[f] })}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        className="btn btn-small"
        onClick={() => onSort(query.sortField)}
        aria-label={query.sortDirection === 'asc' ? t('docs.page.sortAscending') : t('docs.page.sortDescending')}
      >
        {query.sortDirection === 'asc' ? '▲' : '▼'}
      </button>
    </div>
  );
}
