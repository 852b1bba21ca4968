import { describe, expect, it, vi } from 'vitest';
import type { DocStatusResponse } from '../../api/types';
import { findDocument } from './docLookup';

const doc = (id: string, file_path = `${id}.md`, status: DocStatusResponse['status'] = 'processed'): DocStatusResponse => ({
  id,
  file_path,
  status,
  content_summary: '',
  content_length: 0,
  created_at: '',
  updated_at: '',
});

describe('findDocument', () => {
  it('uses the rows on screen without asking the server', async () => {
    const fetchAll = vi.fn();
    expect(await findDocument('b', [doc('a'), doc('b')], fetchAll)).toEqual(doc('b'));
    expect(fetchAll).not.toHaveBeenCalled();
  });

  it('falls back to GET /documents across every status', async () => {
    const fetchAll = vi.fn().mockResolvedValue({ statuses: { processed: [doc('x')], failed: [doc('y', 'y.md', 'failed')] } });
    expect((await findDocument('y', [doc('a')], fetchAll))?.status).toBe('failed');
    expect(fetchAll).toHaveBeenCalledTimes(1);
  });

  it('matches the file name as a last resort and returns null when unknown', async () => {
    const fetchAll = vi.fn().mockResolvedValue({ statuses: { processed: [doc('x', 'notes.md')], pending: undefined } });
    expect((await findDocument('gone', [], fetchAll, 'notes.md'))?.id).toBe('x');
    expect((await findDocument('gone', [], fetchAll, 'uploads/notes.md'))?.id).toBe('x');
    expect(await findDocument('gone', [], fetchAll)).toBeNull();
  });

  it('lets server errors through', async () => {
    const fetchAll = vi.fn().mockRejectedValue(new Error('down'));
    await expect(findDocument('a', [], fetchAll)).rejects.toThrow('down');
  });
});
