// What the documents table shows (status filter, page, page size, sort) and which rows are
// selected, as a reducer so every transition is testable.
import type { PaginatedRequest, SortDirection, SortField } from '../../api/types';
import { filterField, type StatusFilter } from './statusTabs';

export const PAGE_SIZES = [10, 20, 50, 100, 200] as const;

export interface TableQuery {
  filter: StatusFilter;
  page: number;
  pageSize: number;
  sortField: SortField;
  sortDirection: SortDirection;
}

export const DEFAULT_QUERY: TableQuery = {
  filter: 'all',
  page: 1,
  pageSize: 20,
  sortField: 'updated_at',
  sortDirection: 'desc',
};

export type TableAction =
  | { type: 'filter'; filter: StatusFilter }
  | { type: 'page'; page: number }
  | { type: 'pageSize'; pageSize: number }
  | { type: 'sort'; field: SortField }
  /** The server's answer says there are fewer pages than the one asked for. */
  | { type: 'clampPage'; totalPages: number };

/** Sorting a new column starts with the natural direction: newest first for dates, A→Z for text. */
export function defaultDirection(field: SortField): SortDirection {
  return field === 'created_at' || field === 'updated_at' ? 'desc' : 'asc';
}

export function tableReducer(q: TableQuery, action: TableAction): TableQuery {
  switch (action.type) {
    case 'filter':
      return q.filter === action.filter ? q : { ...q, filter: action.filter, page: 1 };
    case 'page': {
      const page = Math.max(1, Math.floor(action.page));
      return page === q.page ? q : { ...q, page };
    }
    case 'pageSize': {
      if (!(PAGE_SIZES as readonly number[]).includes(action.pageSize) || action.pageSize === q.pageSize) return q;
      // keep the first visible row on screen
      const first = (q.page - 1) * q.pageSize;
      return { ...q, pageSize: action.pageSize, page: Math.floor(first / action.pageSize) + 1 };
    }
    case 'sort':
      if (q.sortField === action.field) {
        return { ...q, sortDirection: q.sortDirection === 'asc' ? 'desc' : 'asc', page: 1 };
      }
      return { ...q, sortField: action.field, sortDirection: defaultDirection(action.field), page: 1 };
    case 'clampPage': {
      const last = Math.max(1, action.totalPages);
      return q.page > last ? { ...q, page: last } : q;
    }
  }
}

/** The body of POST /documents/paginated for a table state. */
export function paginatedRequest(q: TableQuery): PaginatedRequest {
  return {
    ...filterField(q.filter),
    page: q.page,
    page_size: q.pageSize,
    sort_field: q.sortField,
    sort_direction: q.sortDirection,
  };
}

/** Query state persisted between visits (not the page: a reload starts at page 1). */
export function restoreQuery(saved: Partial<TableQuery> | null | undefined): TableQuery {
  const q = { ...DEFAULT_QUERY };
  if (!saved || typeof saved !== 'object') return q;
  if ((PAGE_SIZES as readonly number[]).includes(saved.pageSize as number)) q.pageSize = saved.pageSize as number;
  if (['created_at', 'updated_at', 'id', 'file_path'].includes(saved.sortField as string)) {
    q.sortField = saved.sortField as SortField;
  }
  if (saved.sortDirection === 'asc' || saved.sortDirection === 'desc') q.sortDirection = saved.sortDirection;
  return q;
}

// ---- selection ----

/** Ticks or unticks one id. */
export function toggleSelected(selected: ReadonlySet<string>, id: string): Set<string> {
  const next = new Set(selected);
  if (next.has(id)) next.delete(id);
  else next.add(id);
  return next;
}

export type PageSelection = 'none' | 'some' | 'all';

/** How much of the page is selected (for the header checkbox and its "indeterminate" state). */
export function pageSelection(selected: ReadonlySet<string>, pageIds: readonly string[]): PageSelection {
  if (pageIds.length === 0) return 'none';
  const n = pageIds.filter((id) => selected.has(id)).length;
  return n === 0 ? 'none' : n === pageIds.length ? 'all' : 'some';
}

/** The header checkbox: selects the whole page, or clears the page when all of it is selected. */
export function togglePage(selected: ReadonlySet<string>, pageIds: readonly string[]): Set<string> {
  const next = new Set(selected);
  if (pageSelection(selected, pageIds) === 'all') {
    for (const id of pageIds) next.delete(id);
  } else {
    for (const id of pageIds) next.add(id);
  }
  return next;
}

/** Keeps only ids still shown (after a refresh, rows deleted elsewhere drop out of the selection). */
export function pruneSelection(selected: ReadonlySet<string>, pageIds: readonly string[]): ReadonlySet<string> {
  const visible = new Set(pageIds);
  let changed = false;
  const next = new Set<string>();
  for (const id of selected) {
    if (visible.has(id)) next.add(id);
    else changed = true;
  }
  return changed ? next : selected;
}
