// Finding a document in a list of documents (GET /documents answers by status): by id, else by
// file path, else by file name (a reference or an entity's source names only its file).
import type { DocStatusResponse } from '../api/types';
import { baseName } from './text';

/** Every document of a GET /documents answer, whatever its status. */
export function documentsOf(statuses: Record<string, DocStatusResponse[] | undefined> | null | undefined): DocStatusResponse[] {
  return Object.values(statuses ?? {}).flatMap((list) => list ?? []);
}

/** The document with `docId`; else the one at `filePath`; else one with the same file name; else null. */
export function matchDocument(
  docs: readonly DocStatusResponse[],
  key: { docId?: string | null; filePath?: string | null },
): DocStatusResponse | null {
  if (key.docId) {
    const byId = docs.find((d) => d.id === key.docId);
    if (byId) return byId;
  }
  const path = key.filePath;
  if (!path) return null;
  const name = baseName(path);
  return docs.find((d) => d.file_path === path) ?? docs.find((d) => baseName(d.file_path) === name) ?? null;
}
