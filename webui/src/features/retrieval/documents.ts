// Opens a source file of an answer on the documents page: finds its document id by file path.
import { describeError } from '../../api/errors';
import type { DocStatusResponse } from '../../api/types';
import { server } from '../../app/services';
import { showDocument } from '../../state/navigation';
import { notify } from '../../state/notices';

/** The document with this file path (exact, else the same file name), or null. */
export function findByPath(statuses: Record<string, DocStatusResponse[]>, filePath: string): DocStatusResponse | null {
  const all = Object.values(statuses).flat();
  const exact = all.find((d) => d.file_path === filePath);
  if (exact) return exact;
  const base = (p: string) => p.split(/[\\/]/).pop() ?? p;
  return all.find((d) => base(d.file_path) === base(filePath)) ?? null;
}

export async function openDocument(filePath: string): Promise<void> {
  try {
    const { statuses } = await server.allDocuments();
    const doc = findByPath(statuses ?? {}, filePath);
    if (!doc) {
      notify('info', `"${filePath}" is no longer among the documents.`);
      return;
    }
    showDocument(doc.id, doc.file_path);
  } catch (e) {
    notify('error', `Cannot open "${filePath}": ${describeError(e)}`);
  }
}
