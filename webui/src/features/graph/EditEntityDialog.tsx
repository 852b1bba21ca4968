// Edit an entity's name, type and description. Renaming onto an existing name offers to merge
// into it (allow_merge), then shows what the server did (operation_summary).
import { useState } from 'react';
import { Trans } from 'react-i18next';
import { t } from '../../i18n';
import type { GraphEditResponse } from '../../api/types';
import { Dialog } from '../../components/Dialog';
import { notify } from '../../state/notices';
import type { GraphActions } from './actions';
import { buildEntityEdit, type EntityEdit, type EntityForm } from './editPayload';
import { useOnChange } from './useOnChange';
import { useSubmit } from './useSubmit';

export interface EditEntityDialogProps {
  entity: EntityForm | null;
  actions: GraphActions;
  blocked: string | null;
  knownTypes: string[];
  onClose: () => void;
  /** The entity's name after the edit (to select it). */
  onDone: (finalName: string) => void;
}

type Step = { kind: 'form' } | { kind: 'confirm-merge'; edit: EntityEdit } | { kind: 'merged'; response: GraphEditResponse; finalName: string };

export function EditEntityDialog({ entity, actions, blocked, knownTypes, onClose, onDone }: EditEntityDialogProps) {
  const [form, setForm] = useState<EntityForm>(entity ?? { name: '', type: '', description: '' });
  const [step, setStep] = useState<Step>({ kind: 'form' });
  const { busy: sending, error, setError, run, reset } = useSubmit();
  // looking up whether the new name exists (a rename onto it is a merge)
  const [checking, setChecking] = useState(false);
  const busy = sending || checking;
  useOnChange(entity, (next) => {
    if (next) setForm(next);
    setStep({ kind: 'form' });
    reset();
    setChecking(false);
  });

  const send = (edit: EntityEdit, allowMerge: boolean) =>
    run(async () => {
      const outcome = await actions.editEntity(edit, allowMerge);
      if (outcome.merged) {
        setStep({ kind: 'merged', response: outcome.response, finalName: outcome.finalName });
      } else {
        notify('success', outcome.response.message || t('graph.entityUpdated'));
        onDone(outcome.finalName);
      }
    });

  const save = async () => {
    if (!entity) return;
    const built = buildEntityEdit(entity, form);
    if (!built.ok) {
      setError(built.error);
      return;
    }
    if (built.value === null) {
      onClose();
      return;
    }
    const edit = built.value;
    if (edit.rename && edit.rename.toLowerCase() !== entity.name.toLowerCase()) {
      setChecking(true);
      const exists = await actions.entityExists(edit.rename).catch(() => false); // else the server will say
      setChecking(false);
      if (exists) {
        setStep({ kind: 'confirm-merge', edit });
        return;
      }
    }
    await send(edit, false);
  };

  const title = step.kind === 'merged' ? t('graph.entityMerged') : t('graph.editEntity', { name: entity?.name ?? '' });
  let footer;
  if (step.kind === 'form') {
    footer = (
      <>
        <button type="button" className="btn" onClick={onClose}>
          {t('graph.cancel')}
        </button>
        <button type="submit" form="graph-entity-form" className="btn btn-primary" disabled={busy || blocked !== null} data-testid="graph-edit-save">
          {busy ? t('graph.saving') : t('graph.save')}
        </button>
      </>
    );
  } else if (step.kind === 'confirm-merge') {
    footer = (
      <>
        <button type="button" className="btn" onClick={() => setStep({ kind: 'form' })} disabled={busy}>
          {t('graph.back')}
        </button>
        <button
          type="button"
          className="btn btn-primary"
          disabled={busy || blocked !== null}
          onClick={() => void send(step.edit, true)}
          data-testid="graph-merge-into"
        >
          {busy ? t('graph.merging') : t('graph.mergeInto', { name: step.edit.rename })}
        </button>
      </>
    );
  } else {
    footer = (
      <button type="button" className="btn btn-primary" onClick={() => onDone(step.finalName)}>
        {t('graph.done')}
      </button>
    );
  }

  return (
    <Dialog open={entity !== null} title={title} onClose={onClose} footer={footer} testId="graph-edit-entity">
      {blocked && step.kind !== 'merged' && <p className="graph-blocked">{blocked}</p>}
      {step.kind === 'form' && (
        <form
          id="graph-entity-form"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <label className="field">
            <span>{t('graph.name')}</span>
            <input value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} disabled={busy} data-testid="graph-edit-name" />
          </label>
          <label className="field">
            <span>{t('graph.type')}</span>
            <input
              value={form.type}
              list="graph-known-types"
              onChange={(e) => setForm({ ...form, type: e.target.value })}
              disabled={busy}
              data-testid="graph-edit-type"
            />
            <datalist id="graph-known-types">
              {knownTypes.map((t) => (
                <option key={t} value={t} />
              ))}
            </datalist>
          </label>
          <label className="field">
            <span>{t('graph.description')}</span>
            <textarea
              rows={8}
              value={form.description}
              onChange={(e) => setForm({ ...form, description: e.target.value })}
              disabled={busy}
              data-testid="graph-edit-description"
            />
          </label>
          {form.name.trim() !== entity?.name && form.name.trim() !== '' && (
            <p className="muted">{t('graph.renameNote')}</p>
          )}
        </form>
      )}
      {step.kind === 'confirm-merge' && (
        <p>
          <Trans i18nKey="graph.confirmMerge"
            values={{ rename: step.edit.rename, name: entity?.name ?? '' }}
            components={{ strong: <strong /> }}
          />
        </p>
      )}
      {step.kind === 'merged' && <MergeSummary response={step.response} finalName={step.finalName} />}
      {error && (
        <p className="form-error" role="alert" data-testid="graph-edit-error">
          {error}
        </p>
      )}
    </Dialog>
  );
}

export function MergeSummary({ response, finalName }: { response: GraphEditResponse; finalName: string }) {
  const s = response.operation_summary;
  const data = response.data ?? {};
  const rows: [string, unknown][] = s
    ? [
        [t('graph.summary.result'), s.operation_status],
        [t('graph.summary.merge'), s.merge_status],
        [t('graph.summary.mergedInto'), s.target_entity ?? finalName],
        [t('graph.summary.renamed'), s.renamed ? t('graph.yes') : t('graph.no')],
        [t('graph.summary.mergeError'), s.merge_error],
      ]
    : [
        [t('graph.summary.mergedInto'), finalName],
        [t('graph.summary.removed'), Array.isArray(data.deleted_entities) ? data.deleted_entities.join(', ') : undefined],
        [t('graph.summary.moved'), data.relationships_transferred],
        [t('graph.summary.combined'), data.relations_merged],
        [t('graph.summary.selfLoops'), data.self_loops_dropped],
      ];
  return (
    <div data-testid="graph-merge-summary">
      <p>{response.message}</p>
      <dl className="kv">
        {rows
          .filter(([, v]) => v !== undefined && v !== null && v !== '')
          .map(([k, v]) => (
            <div key={k} className="graph-kv-row">
              <dt>{k}</dt>
              <dd>{String(v)}</dd>
            </div>
          ))}
      </dl>
      <p className="muted">{t('graph.summary.shown')}</p>
    </div>
  );
}
