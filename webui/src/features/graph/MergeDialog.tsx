// Merge several entities into one (POST /graph/entities/merge): the picked entities, more can be
// added by name, one is chosen as the target; the others are merged into it and disappear.
import { useEffect, useState } from 'react';
import type { GraphEditResponse } from '../../api/types';
import { Dialog } from '../../components/Dialog';
import type { GraphActions } from './actions';
import { buildMerge } from './editPayload';
import { MergeSummary } from './EditEntityDialog';
import { EntityField } from './EntityField';
import { useSubmit } from './useSubmit';

export function MergeDialog({
  open,
  initial,
  actions,
  blocked,
  onClose,
  onDone,
}: {
  open: boolean;
  initial: string[];
  actions: GraphActions;
  blocked: string | null;
  onClose: () => void;
  onDone: () => void;
}) {
  const [names, setNames] = useState<string[]>([]);
  const [target, setTarget] = useState('');
  const [adding, setAdding] = useState('');
  const { busy, error, setError, run, reset } = useSubmit();
  const [result, setResult] = useState<GraphEditResponse | null>(null);
  useEffect(() => {
    if (!open) return;
    setNames(initial);
    // the most connected one is the usual target: the first picked is a good default
    setTarget(initial[0] ?? '');
    reset();
    setResult(null);
  }, [open, initial, reset]);

  const add = (name: string) => {
    const n = name.trim();
    if (n && !names.includes(n)) setNames([...names, n]);
    if (!target) setTarget(n);
    setAdding('');
  };

  const merge = async () => {
    const built = buildMerge(names, target);
    if (!built.ok) return setError(built.error);
    const { sources, target: into } = built.value;
    await run(async () => setResult(await actions.mergeEntities(sources, into)));
  };

  const footer = result ? (
    <button type="button" className="btn btn-primary" onClick={onDone}>
      Done
    </button>
  ) : (
    <>
      <button type="button" className="btn" onClick={onClose}>
        Cancel
      </button>
      <button
        type="button"
        className="btn btn-primary"
        disabled={busy || blocked !== null || names.length < 2 || !target}
        onClick={() => void merge()}
        data-testid="graph-merge-submit"
      >
        {busy ? 'Merging…' : `Merge ${Math.max(0, names.length - 1)} into “${target || '…'}”`}
      </button>
    </>
  );

  return (
    <Dialog open={open} title={result ? 'Entities merged' : 'Merge entities'} onClose={result ? onDone : onClose} footer={footer} testId="graph-merge">
      {result ? (
        <MergeSummary response={result} finalName={target} />
      ) : (
        <>
          {blocked && <p className="graph-blocked">{blocked}</p>}
          <p className="muted">
            Choose the entity to keep. The others are merged into it: their relations move over, descriptions are combined, and
            they are deleted.
          </p>
          <fieldset className="graph-merge-list">
            <legend>Entities ({names.length})</legend>
            {names.length === 0 && <p className="muted">Pick entities in the graph (Shift+click) or add them below.</p>}
            {names.map((n) => (
              <div key={n} className="graph-merge-row">
                <label className="checkbox">
                  <input type="radio" name="graph-merge-target" checked={target === n} onChange={() => setTarget(n)} disabled={busy} />
                  <span>{n}</span>
                  {target === n && <span className="badge">keep</span>}
                </label>
                <button
                  type="button"
                  className="icon-button"
                  aria-label={`Remove ${n}`}
                  disabled={busy}
                  onClick={() => {
                    setNames(names.filter((x) => x !== n));
                    if (target === n) setTarget('');
                  }}
                >
                  ×
                </button>
              </div>
            ))}
          </fieldset>
          <EntityField label="Add an entity" value={adding} onChange={setAdding} onPick={add} clearOnPick disabled={busy} />
          {error && (
            <p className="form-error" role="alert">
              {error}
            </p>
          )}
        </>
      )}
    </Dialog>
  );
}
