// The bar above the graph: what to load (label, depth, max nodes), find a loaded node, the
// layout, edge labels, and creating entities and relations.
import { useState } from 'react';
import { t } from '../../i18n';
import type { GraphModel, GraphViewState } from './model';
import { LabelPicker, type LabelPickerProps } from './LabelPicker';
import { LAYOUTS } from './layouts';
import { NodeSearch } from './NodeSearch';
import type { GraphRenderer } from './renderer';
import type { LayoutName } from './types';

export interface GraphToolbarProps {
  picker: LabelPickerProps;
  model: GraphModel;
  view: GraphViewState;
  renderer: GraphRenderer | null;
  onFound: (id: string) => void;
  onEdgeLabels: (on: boolean) => void;
  onCreateEntity: () => void;
  onCreateRelation: () => void;
  blocked: string | null;
}

export function GraphToolbar(p: GraphToolbarProps) {
  const { view, renderer } = p;
  const empty = p.model.graph.order === 0;
  // narrow screens: depth, max nodes, layout, edge labels and creation fold behind "Options"
  const [more, setMore] = useState(false);
  return (
    <div className={`graph-toolbar ${more ? 'graph-more-open' : ''}`} role="toolbar" aria-label={t('graph.toolbar')}>
      <LabelPicker {...p.picker} />
      <div className="graph-toolbar-group graph-toolbar-find">
        <NodeSearch model={p.model} version={view.version} onFound={p.onFound} />
        <button
          type="button"
          className="btn btn-small graph-more-toggle"
          aria-expanded={more}
          aria-controls="graph-toolbar-options"
          onClick={() => setMore(!more)}
          data-testid="graph-more"
        >
          {t('graph.options')} {more ? '▴' : '▾'}
        </button>
      </div>
      <div className="graph-toolbar-group graph-toolbar-extra" id="graph-toolbar-options">
        <label className="visually-hidden" htmlFor="graph-layout">
          {t('graph.layout')}
        </label>
        <select
          id="graph-layout"
          value={view.layout}
          disabled={empty}
          onChange={(e) => renderer?.applyLayout(e.target.value as LayoutName)}
          data-testid="graph-layout"
          title={t('graph.layout')}
        >
          {LAYOUTS.map((l) => (
            <option key={l.name} value={l.name}>
              {l.label}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="btn btn-small graph-run"
          disabled={empty}
          onClick={() => (view.layoutRunning ? renderer?.stopForce() : renderer?.applyLayout(view.layout))}
          aria-pressed={view.layoutRunning}
          data-testid="graph-layout-run"
          title={view.layoutRunning ? t('graph.stopForce') : t('graph.runAgain')}
        >
          {view.layoutRunning ? t('graph.stop') : t('graph.run')}
        </button>
        <label className="checkbox graph-inline-check">
          <input type="checkbox" checked={view.edgeLabels} onChange={(e) => p.onEdgeLabels(e.target.checked)} data-testid="graph-edge-labels" />
          <span>{t('graph.edgeLabels')}</span>
        </label>
      </div>
      <div className="graph-toolbar-group graph-toolbar-extra">
        <button type="button" className="btn btn-small" onClick={p.onCreateEntity} disabled={p.blocked !== null} title={p.blocked ?? t('graph.createEntity')} data-testid="graph-new-entity">
          {t('graph.plusEntity')}
        </button>
        <button type="button" className="btn btn-small" onClick={p.onCreateRelation} disabled={p.blocked !== null} title={p.blocked ?? t('graph.createRelation')} data-testid="graph-new-relation">
          {t('graph.plusRelation')}
        </button>
      </div>
    </div>
  );
}
