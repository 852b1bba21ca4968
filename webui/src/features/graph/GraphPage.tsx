// The Knowledge Graph page: load a label's subgraph, explore it (WebGL), inspect and edit
// entities and relations, see where they come from. The page stays mounted when another tab is
// shown: the renderer is woken when it becomes visible, and the force layout stops when hidden.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { t } from '../../i18n';
import { server, session } from '../../app/services';
import { describeError } from '../../api/errors';
import { readJson, local, writeJson } from '../../lib/storage';
import { useStore } from '../../lib/store';
import { health, pipelineBusy } from '../../state/health';
import { graphFocus, navigate, route } from '../../state/navigation';
import { notify } from '../../state/notices';
import { GraphActions } from './actions';
import { typeKey } from './colors';
import { type DialogState, GraphDialogs } from './GraphDialogs';
import { GraphCanvas } from './GraphCanvas';
import { GraphEmpty, GraphStatus, HighlightBanner, PicksBar } from './GraphOverlays';
import { typeCounts } from './graphData';
import { GraphToolbar } from './GraphToolbar';
import { Legend } from './Legend';
import { GraphModel } from './model';
import { type PanelActions, PropertiesPanel } from './PropertiesPanel';
import type { GraphRenderer } from './renderer';
import { WHOLE_GRAPH } from './suggest';
import type { Selection } from './types';
import { ViewControls } from './ViewControls';
import './graph.css';
import './graph-panels.css';

/** Depth, max nodes and edge labels; the last label is kept per workspace (a name of one may not exist in another). */
const SETTINGS_KEY = 'lightrag-rs.graph';
const labelKey = (workspace: string) => `${SETTINGS_KEY}.label.${workspace}`;

interface Saved {
  label: string;
  depth: number;
  maxNodes: number;
  edgeLabels: boolean;
}

const DEFAULTS: Saved = { label: WHOLE_GRAPH, depth: 3, maxNodes: 1000, edgeLabels: false };

/** Why graph edits are refused while the pipeline runs (a function: read in the UI's language). */
export const busyReason = (): string => t('graph.busy');

declare global {
  interface Window {
    /** Set by the synthetic benchmark graph (`#/graph?synthetic=NxM`). */
    __graphBench?: { nodes: number; edges: number; buildMs: number; firstRenderMs: number; sinceLoadMs: number; renderer: GraphRenderer };
  }
}

export function GraphPage({ active }: { active: boolean }) {
  // the page is re-created when the workspace changes: read once
  const [workspace] = useState(() => session.store.get().workspace);
  const saved = useMemo<Saved>(() => {
    const stored = readJson<Partial<Saved>>(local, SETTINGS_KEY, {});
    return { ...DEFAULTS, ...stored, label: local.getItem(labelKey(workspace)) ?? DEFAULTS.label };
  }, [workspace]);
  const [model] = useState(() => new GraphModel({ edgeLabels: saved.edgeLabels }));
  const [actions] = useState(() => new GraphActions(model, server));
  useEffect(() => () => actions.dispose(), [actions]);
  const view = useStore(model.store);
  const [renderer, setRenderer] = useState<GraphRenderer | null>(null);
  const [depth, setDepth] = useState(saved.depth);
  const [maxNodes, setMaxNodes] = useState(saved.maxNodes);
  const [generation, setGeneration] = useState(0);
  const [dialog, setDialog] = useState<DialogState>(null);
  const bodyRef = useRef<HTMLDivElement>(null);
  // a graph loaded while the page is hidden (workspace switch) is laid out when it is shown
  const activeRef = useRef(active);
  activeRef.current = active;
  const pendingLayout = useRef(false);
  const layOut = useCallback((r: GraphRenderer) => {
    if (activeRef.current) r.afterLoad(true);
    else pendingLayout.current = true;
  }, []);
  const busy = useStore(health, pipelineBusy);
  const cap = useStore(health, (h) => Number((h.health?.configuration as Record<string, unknown> | undefined)?.max_graph_nodes) || 1000);
  const routeLabel = useStore(route, (r) => (r.page === 'graph' ? r.params.label : undefined));
  const synthetic = useStore(route, (r) => (r.page === 'graph' ? r.params.synthetic : undefined));
  const plain = useStore(route, (r) => r.params.plain === '1');
  const focus = useStore(graphFocus);
  const blocked = busy ? busyReason() : null;
  // indexing finished while a graph is shown: it may have changed
  const [stale, setStale] = useState(false);
  const wasBusy = useRef(busy);
  useEffect(() => {
    if (wasBusy.current && !busy && model.graph.order > 0) {
      setStale(true);
      setGeneration((g) => g + 1);
    }
    wasBusy.current = busy;
  }, [busy, model]);

  useEffect(() => {
    writeJson(local, SETTINGS_KEY, { depth, maxNodes, edgeLabels: view.edgeLabels });
    // a synthetic benchmark graph is not a label to come back to
    if (view.label && !synthetic) local.setItem(labelKey(workspace), view.label);
  }, [view.label, depth, maxNodes, view.edgeLabels, workspace, synthetic]);

  const load = useCallback(
    async (label: string) => {
      if (route.get().params.label !== label) navigate('graph', { label });
      setStale(false);
      const shown = await actions.load(label, { depth, maxNodes: Math.min(maxNodes, cap) });
      if (shown && renderer) layOut(renderer);
    },
    [actions, depth, maxNodes, cap, renderer, layOut],
  );

  // what to show: the route's label, else the last one (once the renderer exists)
  useEffect(() => {
    if (!renderer || focus || synthetic) return;
    const want = routeLabel ?? model.state.label ?? saved.label;
    if (model.state.status === 'idle' || want !== model.state.label) void load(want);
    // `load` changes with the settings: they apply on the next load, not now
  }, [renderer, routeLabel, focus, synthetic]);

  // "show in graph" from the retrieval page
  useEffect(() => {
    if (!focus || !renderer) return;
    graphFocus.set(null);
    void actions.loadFocus(focus, { depth, maxNodes: Math.min(maxNodes, cap) }).then((found) => {
      layOut(renderer);
      if (found === 0 && model.graph.order > 0) notify('info', t('graph.noneLeft'));
    });
  }, [focus, renderer, actions, depth, maxNodes, cap, model, layOut]);

  // the benchmark's synthetic graph
  useEffect(() => {
    if (!synthetic || !renderer) return;
    let cancelled = false;
    void import('./synthetic').then(({ parseSynthetic, syntheticGraph }) => {
      const size = parseSynthetic(synthetic);
      if (!size || cancelled) return;
      const { kg, positions } = syntheticGraph(size.nodes, size.edges);
      renderer.optimiseBigGraphs = !plain;
      const t0 = performance.now();
      actions.show(kg, `synthetic ${synthetic}`, positions);
      renderer.afterLoad(false);
      const t1 = performance.now();
      renderer.sigma.once('afterRender', () => {
        const t2 = performance.now();
        window.__graphBench = { nodes: model.graph.order, edges: model.graph.size, buildMs: t1 - t0, firstRenderMs: t2 - t0, sinceLoadMs: t2, renderer };
      });
    });
    return () => {
      cancelled = true;
    };
  }, [synthetic, plain, renderer, actions, model]);

  // hidden page: no layout burning a core; visible again: re-measure the container
  useEffect(() => {
    if (!renderer) return;
    if (active) {
      renderer.wake();
      if (pendingLayout.current) {
        pendingLayout.current = false;
        renderer.afterLoad(true);
      }
    } else renderer.stopForce();
  }, [active, renderer]);

  const select = useCallback(
    (sel: Selection | null, center = false) => {
      model.select(sel);
      if (center && sel) {
        if (sel.kind === 'node') renderer?.focusNode(sel.id);
        else renderer?.focusEdge(sel.id);
      }
    },
    [model, renderer],
  );

  const callbacks = useMemo(
    () => ({
      onClickNode: (id: string, additive: boolean) => {
        if (additive) model.togglePick(id);
        else select({ kind: 'node', id });
      },
      onClickEdge: (id: string) => select({ kind: 'edge', id }),
      onClickStage: () => select(null),
    }),
    [model, select],
  );

  const edited = () => setGeneration((g) => g + 1);

  const panelActions: PanelActions = {
    select: (sel) => select(sel, true),
    close: () => select(null),
    sources: (sel) => {
      if (sel.kind === 'node') {
        const a = model.graph.getNodeAttributes(sel.id);
        setDialog({ kind: 'sources', target: { kind: 'entity', name: sel.id, sourceId: a.sourceId, filePath: a.filePath }, description: a.description });
      } else {
        const a = model.graph.getEdgeAttributes(sel.id);
        setDialog({
          kind: 'sources',
          target: { kind: 'relation', source: a.src, target: a.tgt, keywords: a.keywords, sourceId: a.sourceId, filePath: a.filePath },
          description: a.description,
        });
      }
    },
    expand: async (id) => {
      try {
        const added = await actions.expand(id, Math.min(maxNodes, cap));
        if (added > 0) renderer?.tidy();
        notify('info', added === 0 ? t('graph.noMoreNeighbours', { id }) : t('graph.added', { count: added, id }));
      } catch (e) {
        notify('error', t('graph.expandFailed', { error: describeError(e) }));
      }
    },
    hide: (id) => model.hide([id]),
    togglePick: (id) => model.togglePick(id),
    editEntity: (id) => {
      const a = model.graph.getNodeAttributes(id);
      setDialog({ kind: 'edit-entity', entity: { name: id, type: a.entityType, description: a.description } });
    },
    editRelation: (edge) => {
      const a = model.graph.getEdgeAttributes(edge);
      setDialog({
        kind: 'edit-relation',
        relation: { edge, source: a.src, target: a.tgt, description: a.description, keywords: a.keywords, weight: String(a.weight) },
      });
    },
    deleteEntity: (name) => setDialog({ kind: 'delete-entity', name }),
    deleteRelation: (edge) => {
      const a = model.graph.getEdgeAttributes(edge);
      setDialog({ kind: 'delete-relation', edge, source: a.src, target: a.tgt });
    },
  };

  const knownTypes = useMemo(
    () => [...typeCounts(model.graph, typeKey).values()].map((t) => t.type).filter((t) => t !== 'unknown'),
    [model, view.version],
  );

  const selectedNode = view.selected?.kind === 'node' ? view.selected.id : null;
  const canvasLabel = view.label
    ? t('graph.canvasAround', { nodes: model.graph.order, edges: model.graph.size, label: view.label })
    : t('graph.canvas', { nodes: model.graph.order, edges: model.graph.size });

  return (
    <div className="graph-page" data-testid="graph-page" data-status={view.status} data-label={view.label ?? ''}>
      <GraphToolbar
        picker={{
          label: view.label ?? saved.label,
          onLoad: (l) => void load(l),
          depth,
          onDepth: setDepth,
          maxNodes: Math.min(maxNodes, cap),
          onMaxNodes: setMaxNodes,
          maxNodesCap: cap,
          loading: view.status === 'loading',
          generation,
        }}
        model={model}
        view={view}
        renderer={renderer}
        onFound={(id) => select({ kind: 'node', id }, true)}
        onEdgeLabels={(on) => model.setEdgeLabels(on)}
        onCreateEntity={() => setDialog({ kind: 'create-entity', near: selectedNode })}
        onCreateRelation={() => setDialog({ kind: 'create-relation', source: selectedNode })}
        blocked={blocked}
      />
      <div className="graph-body" ref={bodyRef}>
        <div className="graph-stage">
          <GraphCanvas model={model} callbacks={callbacks} onReady={setRenderer} label={canvasLabel} />
          <GraphStatus model={model} view={view} />
          <HighlightBanner model={model} view={view} />
          {stale && !view.highlight && (
            <div className="graph-banner" role="status" data-testid="graph-stale">
              <span>{t('graph.stale')}</span>
              <span className="graph-banner-actions">
                <button type="button" className="btn btn-small btn-primary" onClick={() => void load(view.label ?? WHOLE_GRAPH)}>
                  {t('graph.reload')}
                </button>
                <button type="button" className="btn btn-small" onClick={() => setStale(false)}>
                  {t('graph.dismiss')}
                </button>
              </span>
            </div>
          )}
          <GraphEmpty model={model} view={view} onRetry={() => void load(view.label ?? WHOLE_GRAPH)} onWhole={() => void load(WHOLE_GRAPH)} />
          <ViewControls renderer={renderer} fullscreenTarget={() => bodyRef.current} />
          <Legend model={model} version={view.version} hidden={view.hiddenTypes} />
          <PicksBar view={view} blocked={blocked} onMerge={() => setDialog({ kind: 'merge', names: view.picked })} onClear={() => model.setPicked([])} />
        </div>
        {view.selected && (
          <PropertiesPanel
            key={`${view.selected.kind}:${view.selected.id}`}
            model={model}
            selection={view.selected}
            picked={view.picked}
            actions={panelActions}
            editBlocked={blocked}
          />
        )}
      </div>
      <GraphDialogs
        dialog={dialog}
        setDialog={setDialog}
        actions={actions}
        model={model}
        blocked={blocked}
        knownTypes={knownTypes}
        onEdited={edited}
        onSelect={(sel) => select(sel, true)}
      />
    </div>
  );
}
