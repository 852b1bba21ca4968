// Deleting the selected documents, with "also delete the uploaded file" and "also delete their
// LLM cache". A refusal (busy, not_allowed) or an error is shown in the dialog (not also as a notice),
// which stays open so the user can retry.
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { describeError } from '../../api/errors';
import type { DocStatusResponse } from '../../api/types';
import { server } from '../../app/services';
import { Dialog } from '../../components/Dialog';
import { notify } from '../../state/notices';

export function DeleteDialog({
  docs,
  onClose,
  onDeleted,
}: {
  /** The documents to delete; null = closed. */
  docs: DocStatusResponse[] | null;
  onClose: () => void;
  onDeleted: () => void;
}) {
  const { t } = useTranslation();
  const [deleteFile, setDeleteFile] = useState(false);
  const [deleteCache, setDeleteCache] = useState(false);
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const open = docs !== null && docs.length > 0;
  useEffect(() => {
    if (open) {
      setRefusal(null);
      setBusy(false);
    }
  }, [open]);
  const list = docs ?? [];
  const submit = async () => {
    setBusy(true);
    setRefusal(null);
    try {
      const answer = await server.deleteDocuments(
        list.map((d) => d.id),
        deleteFile,
        deleteCache,
      );
      if (answer.status === 'deletion_started') {
        notify('success', answer.message || t('docs.delete.started', { count: list.length }));
        onDeleted();
        return;
      }
      const label = answer.status === 'busy'
          ? t('docs.delete.busy')
          : answer.status === 'not_allowed'
            ? t('docs.delete.notAllowed')
            : answer.status;
      setRefusal(t('docs.delete.refusal', { label, message: answer.message }));
    } catch (e) {
      setRefusal(t('docs.delete.failed', { error: describeError(e) }));
    } finally {
      setBusy(false);
    }
  };
  const shown = list.slice(0, 8);
  return (
    <Dialog
      open={open}
      title={t('docs.delete.title', { count: list.length })}
      onClose={onClose}
      testId="docs-delete-dialog"
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            {t('common.cancel')}
          </button>
          <button type="button" className="btn btn-danger" onClick={() => void submit()} disabled={busy} data-testid="docs-delete-confirm">
            {busy ? t('docs.delete.deleting') : refusal ? t('common.tryAgain') : t('common.delete')}
          </button>
        </>
      }
    >
      <p>{t('docs.delete.body')}</p>
      <ul className="docs-delete-list">
        {shown.map((d) => (
          <li key={d.id}>
            <span className="docs-delete-name">{d.file_path || d.id}</span> <span className="muted docs-mono">{d.id}</span>
          </li>
        ))}
        {list.length > shown.length && <li className="muted">{t('docs.delete.more', { count: list.length - shown.length })}</li>}
      </ul>
      <label className="checkbox">
        <input type="checkbox" checked={deleteFile} onChange={(e) => setDeleteFile(e.target.checked)} data-testid="docs-delete-file" />
        {t('docs.delete.alsoFile')}
      </label>
      <label className="checkbox">
        <input type="checkbox" checked={deleteCache} onChange={(e) => setDeleteCache(e.target.checked)} data-testid="docs-delete-cache" />
        {t('docs.delete.alsoCache')}
      </label>
      {refusal && (
        <p className="form-error" role="alert" data-testid="docs-delete-refusal">
          {refusal}
        </p>
      )}
    </Dialog>
  );
}
