// Opens a source file of an answer on the documents page: finds its document by file path, and
// hands the document over (the documents page does not look it up again).
import { describeError } from '../../api/errors';
import { t } from '../../i18n';
import { server } from '../../app/services';
import { documentsOf, matchDocument } from '../../lib/documents';
import { showDocument } from '../../state/navigation';
import { notify } from '../../state/notices';

export async function openDocument(filePath: string): Promise<void> {
  try {
    const { statuses } = await server.allDocuments();
    const doc = matchDocument(documentsOf(statuses), { filePath });
    if (!doc) {
      notify('info', t('errors.goneDocument', { file: filePath }));
      return;
    }
    showDocument(doc.id, doc.file_path, doc);
  } catch (e) {
    notify('error', t('errors.openFailed', { file: filePath, error: describeError(e) }));
  }
}
