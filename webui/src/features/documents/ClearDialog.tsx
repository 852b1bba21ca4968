// "Clear all": typed confirmation, optionally also the LLM cache.
import { useState } from 'react';
import { describeError } from '../../api/errors';
import { server } from '../../app/services';
import { Confirm } from '../../components/Confirm';
import { notify } from '../../state/notices';

export function ClearDialog({ open, onClose, onCleared }: { open: boolean; onClose: () => void; onCleared: () => void }) {
  const [alsoCache, setAlsoCache] = useState(false);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    try {
      const answer = await server.clearDocuments();
      if (answer.status === 'success' || answer.status === 'partial_success') {
        notify(answer.status === 'success' ? 'success' : 'error', answer.message || 'All documents cleared.');
        if (alsoCache) {
          try {
            const cache = await server.clearCache();
            notify(cache.status === 'success' ? 'success' : 'error', cache.message || 'LLM cache cleared.');
          } catch (e) {
            notify('error', `Clearing the LLM cache failed: ${describeError(e)}`);
          }
        }
        onCleared();
      } else {
        notify('error', `Clear refused (${answer.status}): ${answer.message}`);
      }
    } catch (e) {
      notify('error', `Clearing the documents failed: ${describeError(e)}`);
    } finally {
      setBusy(false);
      onClose();
    }
  };
  return (
    <Confirm
      open={open}
      title="Clear all documents"
      confirmLabel={busy ? 'Clearing…' : 'Clear everything'}
      danger
      typed="clear"
      busy={busy}
      onConfirm={() => void run()}
      onClose={onClose}
    >
      <p>
        This removes <strong>every</strong> document, chunk, entity, relation and vector of this workspace, and deletes the
        files of its input folder. It cannot be undone.
      </p>
      <label className="checkbox">
        <input type="checkbox" checked={alsoCache} onChange={(e) => setAlsoCache(e.target.checked)} data-testid="docs-clear-cache" />
        Also clear the LLM cache
      </label>
    </Confirm>
  );
}
