// Create an entity, or a relation between two existing entities.
import { useEffect, useState } from 'react';
import { t } from '../../i18n';
import { Dialog } from '../../components/Dialog';
import { notify } from '../../state/notices';
import type { GraphActions } from './actions';
import { buildEntityCreate, buildRelationCreate, type EntityForm, type RelationCreateForm } from './editPayload';
import { EntityField } from './EntityField';
import { useSubmit } from './useSubmit';

export function CreateEntityDialog({
  open,
  actions,
  blocked,
  near,
  knownTypes,
  onClose,
  onDone,
}: {
  open: boolean;
  actions: GraphActions;
  blocked: string | null;
  near: string | null;
  knownTypes: string[];
  onClose: () => void;
  /** The entity was created. */
  onDone: () => void;
}) {
  const [form, setForm] = useState<EntityForm>({ name: '', type: '', description: '' });
  const { busy, error, setError, run, reset } = useSubmit();
  useEffect(() => {
    if (open) {
      setForm({ name: '', type: '', description: '' });
      reset();
    }
  }, [open, reset]);
  const save = async () => {
    const built = buildEntityCreate(form);
    if (!built.ok) return setError(built.error);
    await run(async () => {
      const r = await actions.createEntity(built.value.name, built.value.data, near);
      notify('success', r.message || t('graph.entityCreated', { name: built.value.name }));
      onDone();
    });
  };
  return (
    <Dialog
      open={open}
      title={t('graph.newEntity')}
      onClose={onClose}
      testId="graph-create-entity"
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            {t('graph.cancel')}
          </button>
          <button type="submit" form="graph-create-entity-form" className="btn btn-primary" disabled={busy || blocked !== null}>
            {busy ? t('graph.creating') : t('graph.create')}
          </button>
        </>
      }
    >
      {blocked && <p className="graph-blocked">{blocked}</p>}
      <form
        id="graph-create-entity-form"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <label className="field">
          <span>{t('graph.name')}</span>
          <input value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} disabled={busy} autoFocus />
        </label>
        <label className="field">
          <span>{t('graph.type')}</span>
          <input value={form.type} list="graph-create-types" onChange={(e) => setForm({ ...form, type: e.target.value })} disabled={busy} />
          <datalist id="graph-create-types">
            {knownTypes.map((t) => (
              <option key={t} value={t} />
            ))}
          </datalist>
        </label>
        <label className="field">
          <span>{t('graph.description')}</span>
          <textarea rows={5} value={form.description} onChange={(e) => setForm({ ...form, description: e.target.value })} disabled={busy} />
        </label>
      </form>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </Dialog>
  );
}

const EMPTY_RELATION: RelationCreateForm = { source: '', target: '', description: '', keywords: '', weight: '1' };

export function CreateRelationDialog({
  open,
  actions,
  blocked,
  source,
  onClose,
  onDone,
}: {
  open: boolean;
  actions: GraphActions;
  blocked: string | null;
  source: string | null;
  onClose: () => void;
  /** The relation was created. */
  onDone: () => void;
}) {
  const [form, setForm] = useState<RelationCreateForm>(EMPTY_RELATION);
  const { busy, error, setError, run, reset } = useSubmit();
  useEffect(() => {
    if (open) {
      setForm({ ...EMPTY_RELATION, source: source ?? '' });
      reset();
    }
  }, [open, source, reset]);
  const save = async () => {
    const built = buildRelationCreate(form);
    if (!built.ok) return setError(built.error);
    await run(async () => {
      const r = await actions.createRelation(built.value.source, built.value.target, built.value.data);
      notify('success', r.message || t('graph.relationCreated'));
      onDone();
    });
  };
  return (
    <Dialog
      open={open}
      title={t('graph.newRelation')}
      onClose={onClose}
      testId="graph-create-relation"
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            {t('graph.cancel')}
          </button>
          <button type="submit" form="graph-create-relation-form" className="btn btn-primary" disabled={busy || blocked !== null}>
            {busy ? t('graph.creating') : t('graph.create')}
          </button>
        </>
      }
    >
      {blocked && <p className="graph-blocked">{blocked}</p>}
      <form
        id="graph-create-relation-form"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <div className="graph-form-row">
          <EntityField label={t('graph.from')} value={form.source} onChange={(v) => setForm((f) => ({ ...f, source: v }))} disabled={busy} />
          <EntityField label={t('graph.to')} value={form.target} onChange={(v) => setForm((f) => ({ ...f, target: v }))} disabled={busy} />
        </div>
        <label className="field">
          <span>{t('graph.description')}</span>
          <textarea rows={4} value={form.description} onChange={(e) => setForm({ ...form, description: e.target.value })} disabled={busy} />
        </label>
        <div className="graph-form-row">
          <label className="field">
            <span>{t('graph.keywordsComma')}</span>
            <input value={form.keywords} onChange={(e) => setForm({ ...form, keywords: e.target.value })} disabled={busy} />
          </label>
          <label className="field graph-field-narrow">
            <span>{t('graph.weight')}</span>
            <input inputMode="decimal" value={form.weight} onChange={(e) => setForm({ ...form, weight: e.target.value })} disabled={busy} />
          </label>
        </div>
      </form>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </Dialog>
  );
}
