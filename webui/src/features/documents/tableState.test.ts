import { describe, expect, it } from 'vitest';
import {
  DEFAULT_QUERY,
  pageSelection,
  paginatedRequest,
  pruneSelection,
  restoreQuery,
  tableReducer,
  togglePage,
  toggleSelected,
  type TableQuery,
} from './tableState';

const q = (over: Partial<TableQuery> = {}): TableQuery => ({ ...DEFAULT_QUERY, ...over });

describe('table query', () => {
  it('goes back to page 1 when the filter changes', () => {
    const next = tableReducer(q({ page: 4 }), { type: 'filter', filter: 'failed' });
    expect(next).toMatchObject({ filter: 'failed', page: 1 });
    const same = q({ filter: 'failed', page: 3 });
    expect(tableReducer(same, { type: 'filter', filter: 'failed' })).toBe(same);
  });

  it('toggles the direction on the sorted column and starts new columns naturally', () => {
    const s1 = tableReducer(q({ sortField: 'updated_at', sortDirection: 'desc', page: 2 }), {
      type: 'sort',
      field: 'updated_at',
    });
    expect(s1).toMatchObject({ sortField: 'updated_at', sortDirection: 'asc', page: 1 });
    expect(tableReducer(s1, { type: 'sort', field: 'file_path' })).toMatchObject({
      sortField: 'file_path',
      sortDirection: 'asc',
    });
    expect(tableReducer(q({ sortField: 'id' }), { type: 'sort', field: 'created_at' })).toMatchObject({
      sortField: 'created_at',
      sortDirection: 'desc',
    });
  });

  it('keeps the first visible row when the page size changes', () => {
    // rows 41..60 on page 3 of 20 → page 1 of 50 contains row 41
    expect(tableReducer(q({ page: 3, pageSize: 20 }), { type: 'pageSize', pageSize: 50 })).toMatchObject({
      page: 1,
      pageSize: 50,
    });
    expect(tableReducer(q({ page: 2, pageSize: 50 }), { type: 'pageSize', pageSize: 10 })).toMatchObject({
      page: 6,
      pageSize: 10,
    });
    const s = q();
    expect(tableReducer(s, { type: 'pageSize', pageSize: 33 })).toBe(s);
  });

  it('never goes below page 1 and clamps to the last page', () => {
    expect(tableReducer(q({ page: 2 }), { type: 'page', page: 0 }).page).toBe(1);
    expect(tableReducer(q({ page: 9 }), { type: 'clampPage', totalPages: 3 }).page).toBe(3);
    expect(tableReducer(q({ page: 2 }), { type: 'clampPage', totalPages: 0 }).page).toBe(1);
    const s = q({ page: 2 });
    expect(tableReducer(s, { type: 'clampPage', totalPages: 5 })).toBe(s);
  });

  it('builds the paginated request', () => {
    expect(paginatedRequest(q({ filter: 'processed', page: 2, pageSize: 50, sortField: 'id', sortDirection: 'asc' }))).toEqual({
      status_filter: 'processed',
      page: 2,
      page_size: 50,
      sort_field: 'id',
      sort_direction: 'asc',
    });
    expect(paginatedRequest(q())).not.toHaveProperty('status_filter');
  });

  it('restores only valid saved settings', () => {
    expect(restoreQuery({ pageSize: 100, sortField: 'file_path', sortDirection: 'asc', page: 7 })).toEqual({
      ...DEFAULT_QUERY,
      pageSize: 100,
      sortField: 'file_path',
      sortDirection: 'asc',
    });
    expect(restoreQuery({ pageSize: 7, sortField: 'nope' as never })).toEqual(DEFAULT_QUERY);
    expect(restoreQuery(null)).toEqual(DEFAULT_QUERY);
  });
});

describe('selection', () => {
  const page = ['a', 'b', 'c'];

  it('toggles single rows', () => {
    const s = toggleSelected(new Set(), 'a');
    expect([...s]).toEqual(['a']);
    expect([...toggleSelected(s, 'a')]).toEqual([]);
  });

  it('reports none / some / all of the page', () => {
    expect(pageSelection(new Set(), page)).toBe('none');
    expect(pageSelection(new Set(['b']), page)).toBe('some');
    expect(pageSelection(new Set(page), page)).toBe('all');
    expect(pageSelection(new Set(['x']), [])).toBe('none');
  });

  it('selects the whole page, then clears it', () => {
    const all = togglePage(new Set(['b']), page);
    expect([...all].sort()).toEqual(page);
    expect([...togglePage(all, page)]).toEqual([]);
  });

  it('drops rows no longer shown and keeps the same set when nothing changed', () => {
    const s = new Set(['a', 'z']);
    expect([...pruneSelection(s, page)]).toEqual(['a']);
    const t = new Set(['a']);
    expect(pruneSelection(t, page)).toBe(t);
  });
});
