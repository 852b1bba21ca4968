// The graph page's model: the one graphology graph (shared with the renderer), and the state the
// panels show (what is loaded, selected, picked for a merge, hidden by type, highlighted). Every
// change to the graph's data goes through here, so the panels re-render (`version`) and the
// selection follows renames, merges and removals.
import type { KnowledgeGraph } from '../../api/types';
import { createStore, type Store } from '../../lib/store';
import { createColorRegistry, typeKey } from './colors';
import {
  applySizes,
  createGraph,
  expansionRadius,
  mergeKnowledgeGraph,
  mergeNodesInto,
  pairKey,
  removeNodes,
  renameNode,
  ringPositions,
  SPREAD,
} from './graphData';
import { centroid } from './layouts';
import type { EdgeAttrs, Highlight, KGraph, LayoutName, NodeAttrs, Selection } from './types';

export type LoadStatus = 'idle' | 'loading' | 'ready' | 'error';

export interface GraphViewState {
  /** Bumped on every change of the graph's data. */
  version: number;
  status: LoadStatus;
  error: string | null;
  /** The label whose subgraph is shown ("*" = the whole graph). */
  label: string | null;
  /** The server left nodes out (max nodes reached). */
  truncated: boolean;
  selected: Selection | null;
  /** Entities picked for a merge. */
  picked: string[];
  /** Entity types (keys) not shown. */
  hiddenTypes: string[];
  highlight: Highlight | null;
  edgeLabels: boolean;
  layout: LayoutName;
  layoutRunning: boolean;
}

export const INITIAL_VIEW: GraphViewState = {
  version: 0,
  status: 'idle',
  error: null,
  label: null,
  truncated: false,
  selected: null,
  picked: [],
  hiddenTypes: [],
  highlight: null,
  edgeLabels: false,
  layout: 'force',
  layoutRunning: false,
};

const str = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : String(v));

/** Node attributes from an entity's properties (an edit answer's `data`). */
export function nodeChangesFrom(data: Record<string, unknown> | undefined, colorOf: (t: string) => string): Partial<NodeAttrs> {
  if (!data) return {};
  const out: Partial<NodeAttrs> = {};
  const type = str(data.entity_type);
  if (type !== undefined) {
    out.entityType = type;
    out.color = colorOf(type);
  }
  const description = str(data.description);
  if (description !== undefined) out.description = description;
  const sourceId = str(data.source_id);
  if (sourceId !== undefined) out.sourceId = sourceId;
  const filePath = str(data.file_path);
  if (filePath !== undefined) out.filePath = filePath;
  return out;
}

/** Edge attributes from a relation's properties (an edit answer's `data`). */
export function edgeChangesFrom(data: Record<string, unknown> | undefined): Partial<EdgeAttrs> {
  if (!data) return {};
  const out: Partial<EdgeAttrs> = {};
  const description = str(data.description);
  if (description !== undefined) out.description = description;
  const keywords = str(data.keywords);
  if (keywords !== undefined) {
    out.keywords = keywords;
    out.label = keywords;
  }
  const weight = Number(data.weight);
  if (data.weight !== undefined && Number.isFinite(weight)) out.weight = weight;
  const sourceId = str(data.source_id);
  if (sourceId !== undefined) out.sourceId = sourceId;
  const filePath = str(data.file_path);
  if (filePath !== undefined) out.filePath = filePath;
  return out;
}

export class GraphModel {
  /** Replaced (not cleared) on a new load: building a detached graph and handing it to the renderer at once is much cheaper than updating a rendered one node by node. */
  graph: KGraph = createGraph();
  readonly colors = createColorRegistry();
  readonly store: Store<GraphViewState>;

  constructor(initial: Partial<GraphViewState> = {}) {
    this.store = createStore<GraphViewState>({ ...INITIAL_VIEW, ...initial });
  }

  get state(): GraphViewState {
    return this.store.get();
  }

  colorOf = (type: string): string => this.colors.colorOf(type);

  private patch(p: Partial<GraphViewState>, dataChanged = false): void {
    this.store.set((s) => {
      const next = { ...s, ...p, version: dataChanged ? s.version + 1 : s.version };
      // the selection and the picks only name what is loaded
      if (next.selected) {
        const sel = next.selected;
        const exists = sel.kind === 'node' ? this.graph.hasNode(sel.id) : this.graph.hasEdge(sel.id);
        if (!exists) next.selected = null;
      }
      if (next.picked.some((id) => !this.graph.hasNode(id))) next.picked = next.picked.filter((id) => this.graph.hasNode(id));
      return next;
    });
  }

  setLoading(label: string | null): void {
    this.patch({ status: 'loading', error: null, label: label ?? this.state.label });
  }

  setError(message: string): void {
    this.patch({ status: 'error', error: message });
  }

  /** Shows a new answer in place of the current graph. */
  replace(kg: KnowledgeGraph, label: string, positions?: Record<string, { x: number; y: number }>): void {
    const graph = createGraph();
    mergeKnowledgeGraph(graph, kg, { colorOf: this.colorOf });
    if (positions) {
      graph.updateEachNodeAttributes((k, a) => {
        const p = positions[k];
        return p ? { ...a, x: p.x, y: p.y } : a;
      });
    }
    this.graph = graph;
    this.patch({ status: 'ready', error: null, label, truncated: Boolean(kg.is_truncated), selected: null, picked: [] }, true);
  }

  /** Adds answers to the current graph (several labels of a focus); `anchor` places new nodes near it. */
  merge(kg: KnowledgeGraph, anchor?: string | null): { added: number; addedNodes: string[] } {
    const r = mergeKnowledgeGraph(this.graph, kg, { colorOf: this.colorOf, anchor });
    this.patch({ status: 'ready', error: null, truncated: this.state.truncated || Boolean(kg.is_truncated) }, true);
    return { added: r.addedNodes.length, addedNodes: r.addedNodes };
  }

  clear(): void {
    this.graph = createGraph();
    this.patch({ status: 'idle', label: null, truncated: false, selected: null, picked: [], highlight: null }, true);
  }

  select(sel: Selection | null): void {
    this.patch({ selected: sel });
  }

  togglePick(id: string): void {
    const picked = this.state.picked.includes(id) ? this.state.picked.filter((p) => p !== id) : [...this.state.picked, id];
    this.patch({ picked });
  }

  setPicked(ids: string[]): void {
    this.patch({ picked: [...new Set(ids)] });
  }

  toggleType(type: string): void {
    const key = typeKey(type);
    const hidden = this.state.hiddenTypes.includes(key)
      ? this.state.hiddenTypes.filter((t) => t !== key)
      : [...this.state.hiddenTypes, key];
    this.patch({ hiddenTypes: hidden });
  }

  showAllTypes(): void {
    this.patch({ hiddenTypes: [] });
  }

  isHidden(id: string): boolean {
    if (!this.graph.hasNode(id)) return true;
    return this.state.hiddenTypes.includes(typeKey(this.graph.getNodeAttribute(id, 'entityType')));
  }

  setHighlight(h: Highlight | null): void {
    this.patch({ highlight: h });
  }

  setEdgeLabels(on: boolean): void {
    this.patch({ edgeLabels: on });
  }

  setLayout(layout: LayoutName, running = this.state.layoutRunning): void {
    this.patch({ layout, layoutRunning: running });
  }

  setLayoutRunning(running: boolean): void {
    if (running !== this.state.layoutRunning) this.patch({ layoutRunning: running });
  }

  /** Removes nodes from the view (the server keeps them). */
  hide(ids: string[]): void {
    removeNodes(this.graph, ids);
    this.patch({}, true);
  }

  /** After a successful entity edit: rename, then the new properties. Returns the name it has now. */
  applyEntityEdit(name: string, newName: string | null, data?: Record<string, unknown>): string {
    const changes = nodeChangesFrom(data, this.colorOf);
    const finalName = newName && newName !== name ? newName : name;
    if (finalName !== name) {
      renameNode(this.graph, name, finalName, changes);
    } else if (this.graph.hasNode(name)) {
      this.graph.mergeNodeAttributes(name, changes);
    }
    if (this.graph.hasNode(finalName) && data) {
      const props = { ...this.graph.getNodeAttribute(finalName, 'props'), ...data, entity_id: finalName };
      delete (props as Record<string, unknown>).entity_name;
      this.graph.mergeNodeAttributes(finalName, { props, label: finalName });
    }
    const sel = this.state.selected;
    const selected: Selection | null = sel?.kind === 'node' && sel.id === name ? { kind: 'node', id: finalName } : sel;
    const picked = this.state.picked.map((p) => (p === name ? finalName : p));
    this.patch({ selected, picked }, true);
    return finalName;
  }

  /** After a successful merge (entities merge, or a rename onto an existing name). */
  applyMerge(sources: string[], target: string, data?: Record<string, unknown>): void {
    mergeNodesInto(this.graph, sources, target, nodeChangesFrom(data, this.colorOf));
    const sel = this.state.selected;
    const selected: Selection | null =
      sel?.kind === 'node' && sources.includes(sel.id) && this.graph.hasNode(target) ? { kind: 'node', id: target } : sel;
    this.patch({ selected, picked: [] }, true);
  }

  applyRelationEdit(edge: string, data?: Record<string, unknown>): void {
    if (this.graph.hasEdge(edge)) {
      this.graph.mergeEdgeAttributes(edge, edgeChangesFrom(data));
      applySizes(this.graph);
    }
    this.patch({}, true);
  }

  removeEntity(name: string): void {
    removeNodes(this.graph, [name]);
    this.patch({}, true);
  }

  removeRelation(edge: string): void {
    if (this.graph.hasEdge(edge)) this.graph.dropEdge(edge);
    applySizes(this.graph);
    this.patch({}, true);
  }

  /** A created entity, placed near `near` (or the middle of the graph). */
  addEntity(name: string, data: Record<string, unknown> | undefined, near?: string | null): void {
    if (this.graph.hasNode(name)) return;
    const anchor = near && this.graph.hasNode(near) ? near : null;
    const center = anchor ? this.graph.getNodeAttributes(anchor) : centroid(this.graph, this.graph.nodes());
    const radius = anchor ? expansionRadius(this.graph, anchor) : this.graph.order > 0 ? SPREAD / 10 : 0;
    const [pos] = ringPositions(center, 1, radius, this.graph.order);
    const changes = nodeChangesFrom(data, this.colorOf);
    this.graph.addNode(name, {
      x: pos?.x ?? 0,
      y: pos?.y ?? 0,
      size: 1,
      label: name,
      entityType: changes.entityType ?? '',
      color: changes.color ?? this.colorOf(''),
      description: changes.description ?? '',
      sourceId: changes.sourceId ?? '',
      filePath: changes.filePath ?? '',
      props: { ...(data ?? {}), entity_id: name },
    });
    applySizes(this.graph);
    this.patch({ status: 'ready' }, true);
  }

  /** A created relation (when both ends are loaded). Returns its key, or null. */
  addRelation(src: string, tgt: string, data: Record<string, unknown> | undefined): string | null {
    if (!this.graph.hasNode(src) || !this.graph.hasNode(tgt)) return null;
    const key = pairKey(src, tgt);
    const changes = edgeChangesFrom(data);
    if (!this.graph.hasEdge(key)) {
      this.graph.addEdgeWithKey(key, src, tgt, {
        src,
        tgt,
        size: 1,
        label: changes.keywords ?? '',
        description: changes.description ?? '',
        keywords: changes.keywords ?? '',
        weight: changes.weight ?? 1,
        sourceId: changes.sourceId ?? '',
        filePath: changes.filePath ?? '',
        props: { ...(data ?? {}) },
      });
    }
    applySizes(this.graph);
    this.patch({}, true);
    return key;
  }

  /** The relations of a node in the loaded graph: [edge key, neighbour]. */
  relationsOf(id: string): { edge: string; neighbor: string; attrs: EdgeAttrs }[] {
    if (!this.graph.hasNode(id)) return [];
    return this.graph.mapEdges(id, (edge, attrs, s, t) => ({ edge, neighbor: s === id ? t : s, attrs }));
  }
}
