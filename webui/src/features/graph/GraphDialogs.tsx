// The graph page's dialogs: sources, edits, creations, merge and delete confirmations. One is
// open at a time, described by `dialog`.
import { useState } from 'react';
import { Trans } from 'react-i18next';
import { t } from '../../i18n';
import { Confirm } from '../../components/Confirm';
import { notify } from '../../state/notices';
import type { GraphActions } from './actions';
import { CreateEntityDialog, CreateRelationDialog } from './CreateDialogs';
import { EditEntityDialog } from './EditEntityDialog';
import { EditRelationDialog, type RelationTarget } from './EditRelationDialog';
import type { EntityForm } from './editPayload';
import { MergeDialog } from './MergeDialog';
import type { GraphModel } from './model';
import { SourcesDialog } from './SourcesDialog';
import type { SourcesTarget } from './sources';
import type { Selection } from './types';
import { editErrorText } from './useSubmit';

export type DialogState =
  | null
  | { kind: 'sources'; target: SourcesTarget; description: string }
  | { kind: 'edit-entity'; entity: EntityForm }
  | { kind: 'edit-relation'; relation: RelationTarget }
  | { kind: 'create-entity'; near: string | null }
  | { kind: 'create-relation'; source: string | null }
  | { kind: 'merge'; names: string[] }
  | { kind: 'delete-entity'; name: string }
  | { kind: 'delete-relation'; edge: string; source: string; target: string };

export interface GraphDialogsProps {
  dialog: DialogState;
  setDialog: (d: DialogState) => void;
  actions: GraphActions;
  model: GraphModel;
  blocked: string | null;
  knownTypes: string[];
  /** The graph changed on the server. */
  onEdited: () => void;
  onSelect: (sel: Selection) => void;
}

export function GraphDialogs({ dialog, setDialog, actions, model, blocked, knownTypes, onEdited, onSelect }: GraphDialogsProps) {
  const [deleting, setDeleting] = useState(false);
  const close = () => setDialog(null);
  /** A dialog saved a change: the graph changed on the server. */
  const done = () => {
    onEdited();
    close();
  };

  const runDelete = async () => {
    if (!dialog || (dialog.kind !== 'delete-entity' && dialog.kind !== 'delete-relation')) return;
    setDeleting(true);
    try {
      const message = dialog.kind === 'delete-entity' ? await actions.deleteEntity(dialog.name) : await actions.deleteRelation(dialog.edge);
      notify('success', message);
      done();
    } catch (e) {
      notify('error', t('graph.deleteFailed', { error: editErrorText(e) }));
    } finally {
      setDeleting(false);
    }
  };

  return (
    <>
      <SourcesDialog
        target={dialog?.kind === 'sources' ? dialog.target : null}
        description={dialog?.kind === 'sources' ? dialog.description : ''}
        onClose={close}
      />
      <EditEntityDialog
        entity={dialog?.kind === 'edit-entity' ? dialog.entity : null}
        actions={actions}
        blocked={blocked}
        knownTypes={knownTypes}
        onClose={close}
        onDone={(name) => {
          onEdited();
          close();
          if (model.graph.hasNode(name)) onSelect({ kind: 'node', id: name });
        }}
      />
      <EditRelationDialog
        relation={dialog?.kind === 'edit-relation' ? dialog.relation : null}
        actions={actions}
        blocked={blocked}
        onClose={close}
        onDone={done}
      />
      <CreateEntityDialog
        open={dialog?.kind === 'create-entity'}
        near={dialog?.kind === 'create-entity' ? dialog.near : null}
        actions={actions}
        blocked={blocked}
        knownTypes={knownTypes}
        onClose={close}
        onDone={done}
      />
      <CreateRelationDialog
        open={dialog?.kind === 'create-relation'}
        source={dialog?.kind === 'create-relation' ? dialog.source : null}
        actions={actions}
        blocked={blocked}
        onClose={close}
        onDone={done}
      />
      <MergeDialog
        open={dialog?.kind === 'merge'}
        initial={dialog?.kind === 'merge' ? dialog.names : []}
        actions={actions}
        blocked={blocked}
        onClose={close}
        onDone={done}
      />
      <Confirm
        open={dialog?.kind === 'delete-entity' || dialog?.kind === 'delete-relation'}
        title={dialog?.kind === 'delete-entity' ? t('graph.deleteEntityTitle') : t('graph.deleteRelationTitle')}
        confirmLabel={deleting ? t('graph.deleting') : t('graph.delete')}
        danger
        busy={deleting || blocked !== null}
        onConfirm={() => void runDelete()}
        onClose={() => !deleting && close()}
      >
        {dialog?.kind === 'delete-entity' && (
          <p>
            <Trans i18nKey="graph.deleteEntityBody" values={{ name: dialog.name }} components={{ strong: <strong /> }} />
          </p>
        )}
        {dialog?.kind === 'delete-relation' && (
          <p>
            <Trans i18nKey="graph.deleteRelationBody"
              values={{ source: dialog.source, target: dialog.target }}
              components={{ strong: <strong /> }}
            />
          </p>
        )}
        {blocked && <p className="graph-blocked">{blocked}</p>}
      </Confirm>
    </>
  );
}
