// Edit an entity's name, type and description. Renaming onto an existing name offers to merge
// into it (allow_merge), then shows what the server did (operation_summary).
import { useState } from 'react';
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
        notify('success', outcome.response.message || 'Entity updated.');
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

  const title = step.kind === 'merged' ? 'Entity merged' : `Edit “${entity?.name ?? ''}”`;
  let footer;
  if (step.kind === 'form') {
    footer = (
      <>
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" form="graph-entity-form" className="btn btn-primary" disabled={busy || blocked !== null} data-testid="graph-edit-save">
          {busy ? 'Saving…' : 'Save'}
        </button>
      </>
    );
  } else if (step.kind === 'confirm-merge') {
    footer = (
      <>
        <button type="button" className="btn" onClick={() => setStep({ kind: 'form' })} disabled={busy}>
          Back
        </button>
        <button
          type="button"
          className="btn btn-primary"
          disabled={busy || blocked !== null}
          onClick={() => void send(step.edit, true)}
          data-testid="graph-merge-into"
        >
          {busy ? 'Merging…' : `Merge into “${step.edit.rename}”`}
        </button>
      </>
    );
  } else {
    footer = (
      <button type="button" className="btn btn-primary" onClick={() => onDone(step.finalName)}>
        Done
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
            <span>Name</span>
            <input value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} disabled={busy} data-testid="graph-edit-name" />
          </label>
          <label className="field">
            <span>Type</span>
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
            <span>Description</span>
            <textarea
              rows={8}
              value={form.description}
              onChange={(e) => setForm({ ...form, description: e.target.value })}
              disabled={busy}
              data-testid="graph-edit-description"
            />
          </label>
          {form.name.trim() !== entity?.name && form.name.trim() !== '' && (
            <p className="muted">Renaming moves the entity’s relations, vectors and sources to the new name.</p>
          )}
        </form>
      )}
      {step.kind === 'confirm-merge' && (
        <p>
          An entity named <strong>{step.edit.rename}</strong> already exists. Merge <strong>{entity?.name}</strong> into it? Its
          relations move over, descriptions are combined, and <strong>{entity?.name}</strong> disappears.
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
        ['Result', s.operation_status],
        ['Merge', s.merge_status],
        ['Merged into', s.target_entity ?? finalName],
        ['Renamed', s.renamed ? 'yes' : 'no'],
        ['Merge error', s.merge_error],
      ]
    : [
        ['Merged into', finalName],
        ['Entities removed', Array.isArray(data.deleted_entities) ? data.deleted_entities.join(', ') : undefined],
        ['Relations moved', data.relationships_transferred],
        ['Relations combined', data.relations_merged],
        ['Self-loops dropped', data.self_loops_dropped],
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
      <p className="muted">The graph view shows the merged entity.</p>
    </div>
  );
}
