// The documents table: selection, sortable columns, failed rows with their error in full view.
// Below 720 px each row becomes a card (documents.css).
import { useEffect, useRef, type Ref } from 'react';
import { t } from '../../i18n';
import { useTranslation } from 'react-i18next';
import type { DocStatusResponse, SortDirection, SortField } from '../../api/types';
import { formatCount } from '../../lib/text';
import { formatDateTime, shortId } from './format';
import { StatusBadge } from './StatusBadge';
import { pageSelection } from './tableState';
import { isDuplicate } from './uploadQueue';

export interface TableHandlers {
  onSort: (field: SortField) => void;
  onToggle: (id: string) => void;
  onTogglePage: () => void;
  onOpen: (doc: DocStatusResponse) => void;
  onOpenId: (docId: string) => void;
  onTrack: (trackId: string) => void;
}

interface Props extends TableHandlers {
  docs: DocStatusResponse[];
  selected: ReadonlySet<string>;
  sortField: SortField;
  sortDirection: SortDirection;
  focusId: string | null;
}

function sortable(): { field: SortField; label: string }[] {
  return [
    { field: 'file_path', label: t('docs.table.fileName') },
    { field: 'id', label: t('docs.detail.id') },
    { field: 'created_at', label: t('docs.detail.created') },
    { field: 'updated_at', label: t('docs.detail.updated') },
  ];
}

export function DocumentsTable(props: Props) {
  useTranslation();
  const { docs, selected, onTogglePage, focusId } = props;
  const ids = docs.map((d) => d.id);
  const sel = pageSelection(selected, ids);
  const headerBox = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (headerBox.current) headerBox.current.indeterminate = sel === 'some';
  }, [sel]);
  const focusRow = useRef<HTMLTableRowElement>(null);
  useEffect(() => {
    focusRow.current?.scrollIntoView({ block: 'nearest' });
  }, [focusId]);
  const sortHeader = (field: SortField) => {
    const label = sortable().find((s) => s.field === field)?.label ?? field;
    const current = props.sortField === field;
    return (
      <th aria-sort={current ? (props.sortDirection === 'asc' ? 'ascending' : 'descending') : 'none'} className={`docs-col-${field}`}>
        <button
          type="button"
          className="docs-sort"
          onClick={() => props.onSort(field)}
          data-testid={`docs-sort-${field}`}
          title={t('docs.table.sortByField', { field: label.toLowerCase() })}
        >
          {label}
          <span className="docs-sort-arrow" aria-hidden="true">
            {current ? (props.sortDirection === 'asc' ? '▲' : '▼') : '↕'}
          </span>
        </button>
      </th>
    );
  };
  return (
    <table className="table docs-table" data-testid="docs-table">
      <thead>
        <tr>
          <th className="docs-col-select">
            <input
              ref={headerBox}
              type="checkbox"
              checked={sel === 'all'}
              onChange={onTogglePage}
              disabled={docs.length === 0}
              aria-label={t('docs.table.selectPage')}
              data-testid="docs-select-page"
            />
          </th>
          {sortHeader('file_path')}
          {sortHeader('id')}
          <th className="docs-col-summary">{t('docs.table.summary')}</th>
          <th className="docs-col-status">{t('docs.table.status')}</th>
          <th className="docs-col-num">{t('docs.table.length')}</th>
          <th className="docs-col-num">{t('docs.table.chunks')}</th>
          {sortHeader('created_at')}
          {sortHeader('updated_at')}
          <th className="docs-col-track">{t('docs.table.trackId')}</th>
        </tr>
      </thead>
      <tbody>
        {docs.map((doc) => (
          <Row key={doc.id} doc={doc} {...props} checked={selected.has(doc.id)} rowRef={doc.id === focusId ? focusRow : undefined} />
        ))}
      </tbody>
    </table>
  );
}

function Row({
  doc,
  checked,
  rowRef,
  focusId,
  onToggle,
  onOpen,
  onOpenId,
  onTrack,
}: Props & { doc: DocStatusResponse; checked: boolean; rowRef: Ref<HTMLTableRowElement> | undefined }) {
  useTranslation();
  const duplicate = isDuplicate(doc);
  const original = typeof doc.metadata?.original_doc_id === 'string' ? doc.metadata.original_doc_id : null;
  const name = doc.file_path || t('docs.table.unknownSource');
  const classes = ['docs-row', `docs-row-${doc.status}`];
  if (checked) classes.push('docs-row-selected');
  if (doc.id === focusId) classes.push('docs-row-focus');
  return (
    <tr ref={rowRef} className={classes.join(' ')} data-testid="docs-row" data-doc-id={doc.id} data-file={name} data-status={doc.status}>
      <td className="docs-col-select">
        <input
          type="checkbox"
          checked={checked}
          onChange={() => onToggle(doc.id)}
          aria-label={t('docs.table.select', { name })}
          data-testid="docs-row-select"
        />
      </td>
      <td className="docs-col-file_path" data-label={t('docs.table.file')}>
        <button type="button" className="link-button docs-file" onClick={() => onOpen(doc)} title={t('docs.table.detailsOf', { name })}>
          {name}
        </button>
      </td>
      <td className="docs-col-id docs-mono" data-label={t('docs.detail.id')} title={doc.id}>
        {shortId(doc.id)}
      </td>
      <td className="docs-col-summary" data-label={t('docs.table.summary')}>
        <div className="docs-summary-cell">
          <span className="docs-summary" title={doc.content_summary} dir="auto">
            {doc.content_summary || <span className="muted">—</span>}
          </span>
          {doc.status === 'failed' && doc.error_msg && (
            <span className="docs-error" data-testid="docs-row-error">
              <strong>{t('docs.table.error')}</strong> {doc.error_msg}
            </span>
          )}
          {duplicate && (
            <span className="docs-dup">
              <span className="badge">{t('docs.detail.duplicate')}</span>
              {original ? (
                <>
                  {` ${t('docs.table.duplicateOf')} `}
                  <button type="button" className="link-button docs-mono" onClick={() => onOpenId(original)} title={original}>
                    {shortId(original)}
                  </button>
                </>
              ) : null}
            </span>
          )}
        </div>
      </td>
      <td className="docs-col-status" data-label={t('docs.table.status')}>
        <StatusBadge status={doc.status} />
      </td>
      <td className="docs-col-num" data-label={t('docs.table.length')}>
        {formatCount(doc.content_length)}
      </td>
      <td className="docs-col-num" data-label={t('docs.table.chunks')}>
        {formatCount(doc.chunks_count)}
      </td>
      <td className="docs-col-date" data-label={t('docs.detail.created')}>
        <time dateTime={doc.created_at}>{formatDateTime(doc.created_at)}</time>
      </td>
      <td className="docs-col-date" data-label={t('docs.detail.updated')}>
        <time dateTime={doc.updated_at}>{formatDateTime(doc.updated_at)}</time>
      </td>
      <td className="docs-col-track" data-label={t('docs.table.track')}>
        {doc.track_id ? (
          <button
            type="button"
            className="link-button docs-mono"
            onClick={() => onTrack(doc.track_id!)}
            title={t('docs.table.trackOf', { id: doc.track_id })}
            data-testid="docs-row-track"
          >
            {shortId(doc.track_id, 7, 8)}
          </button>
        ) : (
          <span className="muted">—</span>
        )}
      </td>
    </tr>
  );
}
