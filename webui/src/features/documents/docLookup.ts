// Finding one document by id. The API has no "get one document" route: look in the rows already
// on screen, else in GET /documents (every status, at most 1000 documents).
import type { DocStatusResponse } from '../../api/types';
import { documentsOf, matchDocument } from '../../lib/documents';

export type AllDocuments = { statuses: Record<string, DocStatusResponse[] | undefined> };

/**
 * The document with `docId`, or null when the server does not know it (or it is beyond the
 * 1000 documents GET /documents returns). `filePath` is a fallback key for links that only know
 * the file (e.g. an entity's source).
 */
export async function findDocument(
  docId: string,
  onPage: readonly DocStatusResponse[],
  fetchAll: () => Promise<AllDocuments>,
  filePath?: string,
): Promise<DocStatusResponse | null> {
  const local = onPage.find((d) => d.id === docId);
  if (local) return local;
  const all = await fetchAll();
  return matchDocument(documentsOf(all.statuses), { docId, filePath });
}
