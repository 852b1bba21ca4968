// Edit a relation's description, keywords and weight.
import { useState } from 'react';
import { t } from '../../i18n';
import { Dialog } from '../../components/Dialog';
import { notify } from '../../state/notices';
import type { GraphActions } from './actions';
import { buildRelationEdit, type RelationForm } from './editPayload';
import { useOnChange } from './useOnChange';
import { useSubmit } from './useSubmit';

export interface RelationTarget extends RelationForm {
  edge: string;
  source: string;
  target: string;
}

export function EditRelationDialog({
  relation,
  actions,
  blocked,
  onClose,
  onDone,
}: {
  relation: RelationTarget | null;
  actions: GraphActions;
  blocked: string | null;
  onClose: () => void;
  /** The relation was saved. */
  onDone: () => void;
}) {
  const formOf = (r: RelationTarget): RelationForm => ({ description: r.description, keywords: r.keywords, weight: r.weight });
  const [form, setForm] = useState<RelationForm>(relation ? formOf(relation) : { description: '', keywords: '', weight: '' });
  const { busy, error, setError, run, reset } = useSubmit();
  useOnChange(relation, (next) => {
    if (next) setForm(formOf(next));
    reset();
  });

  const save = async () => {
    if (!relation) return;
    const built = buildRelationEdit(relation, form);
    if (!built.ok) {
      setError(built.error);
      return;
    }
    if (built.value === null) {
      onClose();
      return;
    }
    const { updatedData } = built.value;
    await run(async () => {
      const r = await actions.editRelation(relation.edge, updatedData);
      notify('success', r.message || t('graph.relationUpdated'));
      onDone();
    });
  };

  return (
    <Dialog
      open={relation !== null}
      title={relation ? t('graph.editRelation', { source: relation.source, target: relation.target }) : t('graph.editRelationPlain')}
      onClose={onClose}
      testId="graph-edit-relation"
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            {t('graph.cancel')}
          </button>
          <button type="submit" form="graph-relation-form" className="btn btn-primary" disabled={busy || blocked !== null} data-testid="graph-edit-save">
            {busy ? t('graph.saving') : t('graph.save')}
          </button>
        </>
      }
    >
      {blocked && <p className="graph-blocked">{blocked}</p>}
      <form
        id="graph-relation-form"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <label className="field">
          <span>{t('graph.description')}</span>
          <textarea rows={6} value={form.description} onChange={(e) => setForm({ ...form, description: e.target.value })} disabled={busy} data-testid="graph-edit-description" />
        </label>
        <label className="field">
          <span>{t('graph.keywordsComma')}</span>
          <input value={form.keywords} onChange={(e) => setForm({ ...form, keywords: e.target.value })} disabled={busy} data-testid="graph-edit-keywords" />
        </label>
        <label className="field">
          <span>{t('graph.weight')}</span>
          <input inputMode="decimal" value={form.weight} onChange={(e) => setForm({ ...form, weight: e.target.value })} disabled={busy} data-testid="graph-edit-weight" />
        </label>
      </form>
      {error && (
        <p className="form-error" role="alert" data-testid="graph-edit-error">
          {error}
        </p>
      )}
    </Dialog>
  );
}
