// The selected node or edge: its properties, relations in the loaded graph, and what can be done
// with it (sources, expand, hide, pick for a merge, edit, delete).
import { useState } from 'react';
import { t } from '../../i18n';
import { plural, SEP, splitSep } from '../../lib/text';
import { splitKeywords } from './highlight';
import type { GraphModel } from './model';
import type { Selection } from './types';

export interface PanelActions {
  select: (sel: Selection) => void;
  close: () => void;
  sources: (sel: Selection) => void;
  expand: (node: string) => Promise<void>;
  hide: (node: string) => void;
  togglePick: (node: string) => void;
  editEntity: (node: string) => void;
  editRelation: (edge: string) => void;
  deleteEntity: (node: string) => void;
  deleteRelation: (edge: string) => void;
}

export interface PropertiesPanelProps {
  model: GraphModel;
  selection: Selection;
  picked: string[];
  actions: PanelActions;
  /** Why edits are not possible now (pipeline busy), or null. */
  editBlocked: string | null;
}

export function PropertiesPanel(p: PropertiesPanelProps) {
  const { model, selection } = p;
  const exists = selection.kind === 'node' ? model.graph.hasNode(selection.id) : model.graph.hasEdge(selection.id);
  if (!exists) return null;
  return (
    <aside className="graph-panel" aria-label={t('graph.properties')} data-testid="graph-properties">
      {selection.kind === 'node' ? <NodeDetails {...p} id={selection.id} /> : <EdgeDetails {...p} id={selection.id} />}
    </aside>
  );
}

function Description({ text }: { text: string }) {
  const parts = splitSep(text);
  if (parts.length === 0) return <p className="muted">{t('why.noDescription')}</p>;
  return (
    <div className="graph-description" data-testid="graph-description">
      {parts.map((t, i) => (
        <p key={i}>{t}</p>
      ))}
    </div>
  );
}

function AllProperties({ props }: { props: Record<string, unknown> }) {
  const entries = Object.entries(props).filter(([, v]) => v !== undefined && v !== null && v !== '');
  return (
    <details className="graph-all-props">
      <summary>{t('graph.allProperties')}</summary>
      <dl className="kv">
        {entries.map(([k, v]) => (
          <div key={k} className="graph-kv-row">
            <dt>{k}</dt>
            <dd>{typeof v === 'string' ? v.split(SEP).join(' · ') : JSON.stringify(v)}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}

function EditButtons({ blocked, onEdit, onDelete, label }: { blocked: string | null; onEdit: () => void; onDelete: () => void; label: string }) {
  return (
    <>
      <div className="graph-panel-actions">
        <button type="button" className="btn btn-small" disabled={blocked !== null} onClick={onEdit} data-testid="graph-edit">
          {label}
        </button>
        <button type="button" className="btn btn-small btn-danger-outline" disabled={blocked !== null} onClick={onDelete} data-testid="graph-delete">
          {t('graph.deleteEllipsis')}
        </button>
      </div>
      {blocked && (
        <p className="graph-blocked" role="status">
          {blocked}
        </p>
      )}
    </>
  );
}

function NodeDetails({ model, id, picked, actions, editBlocked }: PropertiesPanelProps & { id: string }) {
  const a = model.graph.getNodeAttributes(id);
  const relations = model.relationsOf(id).sort((x, y) => x.neighbor.localeCompare(y.neighbor));
  const chunks = splitSep(a.sourceId);
  const files = splitSep(a.filePath);
  const [expanding, setExpanding] = useState(false);
  const isPicked = picked.includes(id);
  return (
    <>
      <header className="graph-panel-header">
        <span className="graph-swatch" style={{ background: a.color }} aria-hidden="true" />
        <h2 title={id} data-testid="graph-properties-title">
          {id}
        </h2>
        <button type="button" className="icon-button" aria-label={t('graph.closeProperties')} onClick={actions.close}>
          ×
        </button>
      </header>
      <div className="graph-panel-body">
        <dl className="graph-facts">
          <div>
            <dt>{t('graph.type')}</dt>
            <dd>
              <span className="badge">{a.entityType || t('graph.unknownType')}</span>
            </dd>
          </div>
          <div>
            <dt>{t('graph.degree')}</dt>
            <dd title={t('graph.degreeTitle')}>{model.graph.degree(id)}</dd>
          </div>
          <div>
            <dt>{t('graph.sources')}</dt>
            <dd>
              {plural(chunks.length, 'chunk')} · {plural(files.length, 'file')}
            </dd>
          </div>
        </dl>
        <h3>{t('graph.description')}</h3>
        <Description text={a.description} />
        <div className="graph-panel-actions">
          <button
            type="button"
            className="btn btn-small btn-primary"
            onClick={() => actions.sources({ kind: 'node', id })}
            data-testid="graph-open-sources"
          >
            {t('graph.sources')}
          </button>
          <button
            type="button"
            className="btn btn-small"
            disabled={expanding}
            onClick={() => {
              setExpanding(true);
              void actions.expand(id).finally(() => setExpanding(false));
            }}
            title={t('graph.expandTitle')}
            data-testid="graph-expand"
          >
            {expanding ? t('graph.expanding') : t('graph.expand')}
          </button>
          <button type="button" className="btn btn-small" onClick={() => actions.hide(id)} title={t('graph.hideTitle')} data-testid="graph-hide">
            {t('graph.hide')}
          </button>
          <button
            type="button"
            className="btn btn-small"
            aria-pressed={isPicked}
            onClick={() => actions.togglePick(id)}
            title={t('graph.pickTitle')}
            data-testid="graph-pick"
          >
            {isPicked ? t('graph.pickedMark') : t('graph.pick')}
          </button>
        </div>
        <EditButtons blocked={editBlocked} label={t('graph.editEntityButton')} onEdit={() => actions.editEntity(id)} onDelete={() => actions.deleteEntity(id)} />
        <h3>
          {t('graph.relationsHeading')} <span className="muted">{t('graph.shown', { count: relations.length })}</span>
        </h3>
        {relations.length === 0 ? (
          <p className="muted">{t('graph.noRelations')}</p>
        ) : (
          <ul className="graph-relations" data-testid="graph-relations">
            {relations.map((r) => (
              <li key={r.edge}>
                <button type="button" className="link-button" onClick={() => actions.select({ kind: 'node', id: r.neighbor })} title={t('graph.select', { name: r.neighbor })}>
                  {r.neighbor}
                </button>
                <button type="button" className="graph-relation-link" onClick={() => actions.select({ kind: 'edge', id: r.edge })} title={t('graph.selectRelation')}>
                  {r.attrs.keywords ? splitKeywords(r.attrs.keywords).slice(0, 3).join(', ') : t('graph.relationWord')} →
                </button>
              </li>
            ))}
          </ul>
        )}
        <AllProperties props={a.props} />
      </div>
    </>
  );
}

function EdgeDetails({ model, id, actions, editBlocked }: PropertiesPanelProps & { id: string }) {
  const a = model.graph.getEdgeAttributes(id);
  const chunks = splitSep(a.sourceId);
  const files = splitSep(a.filePath);
  const keywords = splitKeywords(a.keywords);
  const endpoint = (name: string) =>
    model.graph.hasNode(name) ? (
      <button type="button" className="link-button" onClick={() => actions.select({ kind: 'node', id: name })}>
        {name}
      </button>
    ) : (
      <span>{name}</span>
    );
  return (
    <>
      <header className="graph-panel-header">
        <h2 data-testid="graph-properties-title">{t('graph.relation')}</h2>
        <button type="button" className="icon-button" aria-label={t('graph.closeProperties')} onClick={actions.close}>
          ×
        </button>
      </header>
      <div className="graph-panel-body">
        <p className="graph-edge-ends">
          {endpoint(a.src)} <span aria-label={t('graph.and')}>↔</span> {endpoint(a.tgt)}
        </p>
        <dl className="graph-facts">
          <div>
            <dt>{t('graph.weight')}</dt>
            <dd>{a.weight}</dd>
          </div>
          <div>
            <dt>{t('graph.sources')}</dt>
            <dd>
              {plural(chunks.length, 'chunk')} · {plural(files.length, 'file')}
            </dd>
          </div>
        </dl>
        {keywords.length > 0 && (
          <>
            <h3>{t('graph.keywords')}</h3>
            <p className="graph-keywords">
              {keywords.map((k) => (
                <span key={k} className="badge">
                  {k}
                </span>
              ))}
            </p>
          </>
        )}
        <h3>{t('graph.description')}</h3>
        <Description text={a.description} />
        <div className="graph-panel-actions">
          <button
            type="button"
            className="btn btn-small btn-primary"
            onClick={() => actions.sources({ kind: 'edge', id })}
            data-testid="graph-open-sources"
          >
            {t('graph.sources')}
          </button>
        </div>
        <EditButtons blocked={editBlocked} label={t('graph.editRelationButton')} onEdit={() => actions.editRelation(id)} onDelete={() => actions.deleteRelation(id)} />
        <AllProperties props={a.props} />
      </div>
    </>
  );
}
