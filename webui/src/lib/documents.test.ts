import { describe, expect, it } from 'vitest';
import type { DocStatusResponse } from '../api/types';
import { documentsOf, matchDocument } from './documents';

const doc = (id: string, file_path: string): DocStatusResponse => ({
  id,
  file_path,
  status: 'processed',
  content_summary: '',
  content_length: 0,
  created_at: '',
  updated_at: '',
});

describe('matchDocument', () => {
  const docs = [doc('a', 'inputs/notes.md'), doc('b', 'report.pdf'), doc('c', 'other/notes.md')];

  it('finds by id first, whatever the path says', () => {
    expect(matchDocument(docs, { docId: 'c', filePath: 'report.pdf' })?.id).toBe('c');
  });

  it('falls back to the exact path, then to the file name', () => {
    expect(matchDocument(docs, { docId: 'gone', filePath: 'other/notes.md' })?.id).toBe('c');
    expect(matchDocument(docs, { filePath: 'C:\\uploads\\report.pdf' })?.id).toBe('b');
    expect(matchDocument(docs, { filePath: 'notes.md' })?.id).toBe('a');
  });

  it('is null when nothing matches or nothing is asked', () => {
    expect(matchDocument(docs, { docId: 'gone' })).toBeNull();
    expect(matchDocument(docs, { filePath: 'missing.txt' })).toBeNull();
    expect(matchDocument(docs, {})).toBeNull();
  });

  it('flattens a GET /documents answer', () => {
    expect(documentsOf({ processed: [docs[0]!], failed: undefined, pending: [docs[1]!] }).map((d) => d.id)).toEqual(['a', 'b']);
    expect(documentsOf(undefined)).toEqual([]);
  });
});
