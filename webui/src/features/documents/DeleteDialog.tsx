// Deleting the selected documents, with "also delete the uploaded file" and "also delete their
// LLM cache". A refusal (busy, not_allowed) or an error is shown in the dialog (not also as a notice),
// which stays open so the user can retry.
import { useEffect, useState } from 'react';
import { describeError } from '../../api/errors';
import type { DocStatusResponse } from '../../api/types';
import { server } from '../../app/services';
import { Dialog } from '../../components/Dialog';
import { notify } from '../../state/notices';
import { plural } from '../../lib/text';

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
        notify('success', answer.message || `Deleting ${plural(list.length, 'document')}.`);
        onDeleted();
        return;
      }
      const label = answer.status === 'busy' ? 'The pipeline is busy' : answer.status === 'not_allowed' ? 'Not allowed' : answer.status;
      setRefusal(`${label}: ${answer.message}`);
    } catch (e) {
      setRefusal(`Deletion failed: ${describeError(e)}`);
    } finally {
      setBusy(false);
    }
  };
  const shown = list.slice(0, 8);
  return (
    <Dialog
      open={open}
      title={`Delete ${plural(list.length, 'document')}`}
      onClose={onClose}
      testId="docs-delete-dialog"
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="button" className="btn btn-danger" onClick={() => void submit()} disabled={busy} data-testid="docs-delete-confirm">
            {busy ? 'Deleting…' : refusal ? 'Try again' : 'Delete'}
          </button>
        </>
      }
    >
      <p>
        These documents, their chunks and what only they contributed to the knowledge graph will be removed. Entities and
        relations also found in other documents are rebuilt from those.
      </p>
      <ul className="docs-delete-list">
        {shown.map((d) => (
          <li key={d.id}>
            <span className="docs-delete-name">{d.file_path || d.id}</span> <span className="muted docs-mono">{d.id}</span>
          </li>
        ))}
        {list.length > shown.length && <li className="muted">… and {plural(list.length - shown.length, 'more document')}</li>}
      </ul>
      <label className="checkbox">
        <input type="checkbox" checked={deleteFile} onChange={(e) => setDeleteFile(e.target.checked)} data-testid="docs-delete-file" />
        Also delete the uploaded file from the input folder
      </label>
      <label className="checkbox">
        <input type="checkbox" checked={deleteCache} onChange={(e) => setDeleteCache(e.target.checked)} data-testid="docs-delete-cache" />
        Also delete their LLM cache (re-indexing them will call the LLM again)
      </label>
      {refusal && (
        <p className="form-error" role="alert" data-testid="docs-delete-refusal">
          {refusal}
        </p>
      )}
    </Dialog>
  );
}
