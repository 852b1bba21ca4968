// Merge several entities into one (POST /graph/entities/merge): the picked entities, more can be
// added by name, one is chosen as the target; the others are merged into it and disappear.
import { useEffect, useState } from 'react';
import { t } from '../../i18n';
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
      {t('graph.done')}
    </button>
  ) : (
    <>
      <button type="button" className="btn" onClick={onClose}>
        {t('graph.cancel')}
      </button>
      <button
        type="button"
        className="btn btn-primary"
        disabled={busy || blocked !== null || names.length < 2 || !target}
        onClick={() => void merge()}
        data-testid="graph-merge-submit"
      >
        {busy ? t('graph.merging') : t('graph.mergeN', { count: Math.max(0, names.length - 1), target: target || '…' })}
      </button>
    </>
  );

  return (
    <Dialog open={open} title={result ? t('graph.entitiesMerged') : t('graph.mergeEntities')} onClose={result ? onDone : onClose} footer={footer} testId="graph-merge">
      {result ? (
        <MergeSummary response={result} finalName={target} />
      ) : (
        <>
          {blocked && <p className="graph-blocked">{blocked}</p>}
          <p className="muted">
            {t('graph.mergeBody')}
          </p>
          <fieldset className="graph-merge-list">
            <legend>{t('graph.entitiesCount', { count: names.length })}</legend>
            {names.length === 0 && <p className="muted">{t('graph.pickHint')}</p>}
            {names.map((n) => (
              <div key={n} className="graph-merge-row">
                <label className="checkbox">
                  <input type="radio" name="graph-merge-target" checked={target === n} onChange={() => setTarget(n)} disabled={busy} />
                  <span>{n}</span>
                  {target === n && <span className="badge">{t('graph.keep')}</span>}
                </label>
                <button
                  type="button"
                  className="icon-button"
                  aria-label={t('graph.remove', { name: n })}
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
          <EntityField label={t('graph.addEntity')} value={adding} onChange={setAdding} onPick={add} clearOnPick disabled={busy} />
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
