// The WebGL view of the model's graph: one Sigma instance fed by the model, hover and node
// dragging, and the camera; how nodes and edges look is decided in styling.ts, the layouts are
// run by layoutRunner.ts. Created on mount, killed on unmount.
import Sigma from 'sigma';
import { EdgeLineProgram, EdgeRectangleProgram, NodePointProgram } from 'sigma/rendering';
import type { Settings } from 'sigma/settings';
import { drawHover, drawLabel, readTheme } from './drawing';
import { LayoutRunner, NOVERLAP_AFTER_FORCE_MAX } from './layoutRunner';
import type { GraphModel } from './model';
import { initialStyle, type StyleState, styleEdge, styleNode } from './styling';
import type { EdgeAttrs, LayoutName, NodeAttrs } from './types';

/**
 * Above this many nodes + edges: edges and labels hidden while the camera moves, nodes as GL
 * points and edges as GL lines, and hovering restyles only the neighbourhood (no fading).
 */
export const BIG_GRAPH = 4000;
/** Edge hover/click needs an edge picking pass on every frame: only for graphs with fewer edges. */
export const EDGE_EVENTS_MAX = 4000;

export interface RendererCallbacks {
  onClickNode(id: string, additive: boolean): void;
  onClickEdge(id: string): void;
  onClickStage(): void;
}

export class GraphRenderer {
  readonly sigma: Sigma<NodeAttrs, EdgeAttrs>;
  private readonly model: GraphModel;
  private readonly container: HTMLElement;
  private readonly callbacks: RendererCallbacks;
  /** What the drawing depends on (styling.ts). */
  private readonly st: StyleState;
  private dragged: string | null = null;
  private dragMoved = false;
  private readonly layouts: LayoutRunner;
  private readonly unsubscribe: () => void;
  private readonly resizeObserver: ResizeObserver | null;
  private lastVersion = -1;
  /** Killed (unmounted): calls that arrive late (after an awaited load) do nothing. */
  private killed = false;

  constructor(container: HTMLElement, model: GraphModel, callbacks: RendererCallbacks) {
    this.container = container;
    this.model = model;
    this.callbacks = callbacks;
    this.st = initialStyle(model, readTheme(container));
    const settings: Partial<Settings<NodeAttrs, EdgeAttrs>> = {
      allowInvalidContainer: true,
      renderEdgeLabels: true,
      enableEdgeEvents: true,
      zIndex: true,
      defaultEdgeType: 'line',
      edgeProgramClasses: { line: EdgeRectangleProgram, thin: EdgeLineProgram },
      nodeProgramClasses: { point: NodePointProgram },
      labelSize: 12,
      labelWeight: '500',
      edgeLabelSize: 11,
      labelDensity: 0.6,
      labelGridCellSize: 90,
      labelRenderedSizeThreshold: 7,
      minCameraRatio: 0.01,
      maxCameraRatio: 20,
      stagePadding: 40,
      nodeReducer: (node, data) => styleNode(this.st, node, data),
      edgeReducer: (edge, data) => styleEdge(this.st, edge, data),
      defaultDrawNodeLabel: (ctx, data, s) => drawLabel(ctx, data, s, this.st.colors),
      defaultDrawNodeHover: (ctx, data, s) => drawHover(ctx, data, s, this.st.colors),
      ...this.themeSettings(),
    };
    this.sigma = new Sigma<NodeAttrs, EdgeAttrs>(model.graph, container, settings);
    this.layouts = new LayoutRunner(model, this.sigma, () => this.fit());
    this.bindEvents();
    this.applySizeSettings();
    this.unsubscribe = model.store.subscribe(() => this.onModelChange());
    this.resizeObserver =
      typeof ResizeObserver === 'undefined'
        ? null
        : new ResizeObserver(() => {
            if (this.container.offsetWidth > 0) this.sigma.resize().scheduleRefresh();
          });
    this.resizeObserver?.observe(container);
  }

  kill(): void {
    this.killed = true;
    this.layouts.stop();
    this.unsubscribe();
    this.resizeObserver?.disconnect();
    this.sigma.kill();
  }

  // ---- state → display ----

  private onModelChange(): void {
    const prev = this.st.view;
    const next = this.model.state;
    this.st.view = next;
    if (next.version !== this.lastVersion) {
      this.lastVersion = next.version;
      this.applySizeSettings();
      if (this.sigma.getGraph() !== this.model.graph) {
        // a new load: the model built a new graph
        this.layouts.stop();
        this.st.hovered = null;
        this.st.hoveredEdge = null;
        this.dragged = null;
        this.sigma.setCustomBBox(null);
        this.sigma.setGraph(this.model.graph);
      }
      this.st.hoverSet = this.st.hovered && this.model.graph.hasNode(this.st.hovered) ? this.neighbourhood(this.st.hovered) : null;
      if (!this.st.hoverSet) this.st.hovered = null;
    }
    if (prev.hiddenTypes !== next.hiddenTypes) this.st.hiddenTypes = new Set(next.hiddenTypes);
    if (
      prev.selected !== next.selected ||
      prev.picked !== next.picked ||
      prev.hiddenTypes !== next.hiddenTypes ||
      prev.highlight !== next.highlight ||
      prev.edgeLabels !== next.edgeLabels
    ) {
      this.restyle();
    }
  }

  /** Settings that depend on the graph's size (cheaper drawing for big graphs). */
  /** Off: big graphs are drawn like small ones (the benchmark's "before" figures). */
  optimiseBigGraphs = true;

  private applySizeSettings(): void {
    const g = this.model.graph;
    const big = this.optimiseBigGraphs && g.order + g.size > BIG_GRAPH;
    const edgeEvents = g.size <= EDGE_EVENTS_MAX;
    const s = this.sigma;
    if (big !== this.st.big || s.getSetting('enableEdgeEvents') !== edgeEvents) {
      this.st.big = big;
      s.setSettings({
        hideEdgesOnMove: big,
        hideLabelsOnMove: big,
        defaultEdgeType: big ? 'thin' : 'line',
        // GL points: one vertex per node instead of a triangle, several times faster in software GL
        defaultNodeType: big ? 'point' : 'circle',
        enableEdgeEvents: edgeEvents,
        labelRenderedSizeThreshold: big ? 9 : 7,
        labelDensity: big ? 0.35 : 0.6,
      });
    }
  }

  private themeSettings(): Partial<Settings<NodeAttrs, EdgeAttrs>> {
    const c = this.st.colors;
    return {
      labelFont: c.font,
      edgeLabelFont: c.font,
      labelColor: { color: c.text },
      edgeLabelColor: { color: c.muted },
      defaultEdgeColor: c.edge,
      defaultNodeColor: c.muted,
    };
  }

  /** Re-reads the theme's colours (after a theme switch). */
  applyTheme(): void {
    this.st.colors = readTheme(this.container);
    this.st.dimmed.clear();
    this.sigma.setSettings(this.themeSettings());
  }

  private neighbourhood(node: string): Set<string> {
    const set = new Set<string>([node]);
    this.model.graph.forEachNeighbor(node, (n) => set.add(n));
    return set;
  }

  /** Re-applies the reducers to every node and edge. */
  restyle(): void {
    this.sigma.refresh();
  }

  /** Re-applies the reducers to some nodes and edges without re-indexing (positions did not change). */
  private repaint(nodes: string[], edges: string[]): void {
    try {
      this.sigma.refresh({ partialGraph: { nodes, edges }, skipIndexation: true, schedule: true });
    } catch {
      // something was added since sigma's last full pass: do a full one
      this.sigma.refresh({ schedule: true });
    }
  }

  // ---- events ----

  private setHovered(node: string | null): void {
    if (node === this.st.hovered) return;
    const before = this.st.hovered;
    const beforeSet = this.st.hoverSet;
    this.st.hovered = node;
    this.st.hoverSet = node ? this.neighbourhood(node) : null;
    this.container.style.cursor = node ? 'pointer' : '';
    if (!this.st.big) {
      this.sigma.refresh({ schedule: true });
      return;
    }
    // big graphs: repaint only the two neighbourhoods (a full pass costs tens of milliseconds)
    const g = this.model.graph;
    const nodes = new Set<string>([...(beforeSet ?? []), ...(this.st.hoverSet ?? [])]);
    const edges: string[] = [];
    for (const n of [before, node]) if (n && g.hasNode(n)) g.forEachEdge(n, (e) => void edges.push(e));
    this.repaint([...nodes].filter((n) => g.hasNode(n)), edges);
  }

  private bindEvents(): void {
    const s = this.sigma;
    s.on('enterNode', ({ node }) => {
      if (!this.dragged) this.setHovered(node);
    });
    s.on('leaveNode', () => {
      if (!this.dragged) this.setHovered(null);
    });
    s.on('enterEdge', ({ edge }) => {
      this.st.hoveredEdge = edge;
      if (!this.st.hovered) this.container.style.cursor = 'pointer';
      this.repaint([], [edge]);
    });
    s.on('leaveEdge', ({ edge }) => {
      this.st.hoveredEdge = null;
      if (!this.st.hovered) this.container.style.cursor = '';
      if (this.model.graph.hasEdge(edge)) this.repaint([], [edge]);
    });
    s.on('clickNode', ({ node, event }) => {
      if (this.dragMoved) return;
      const o = event.original as MouseEvent;
      this.callbacks.onClickNode(node, Boolean(o.shiftKey || o.ctrlKey || o.metaKey));
    });
    s.on('clickEdge', ({ edge }) => this.callbacks.onClickEdge(edge));
    s.on('clickStage', () => {
      if (!this.dragMoved) this.callbacks.onClickStage();
    });
    // dragging a node
    s.on('downNode', ({ node }) => {
      this.dragged = node;
      this.dragMoved = false;
      if (this.layouts.running) this.layouts.stop();
      if (!s.getCustomBBox()) s.setCustomBBox(s.getBBox());
    });
    s.on('moveBody', ({ event }) => {
      if (!this.dragged) return;
      const pos = s.viewportToGraph(event);
      this.model.graph.mergeNodeAttributes(this.dragged, { x: pos.x, y: pos.y });
      this.dragMoved = true;
      event.preventSigmaDefault();
      event.original.preventDefault();
      event.original.stopPropagation();
    });
    const up = () => {
      if (this.dragged) {
        this.dragged = null;
        // the click that ends a drag must not select: cleared after sigma's click handlers ran
        setTimeout(() => (this.dragMoved = false), 0);
      }
    };
    s.on('upNode', up);
    s.on('upStage', up);
  }

  // ---- camera ----

  zoomIn(): void {
    void this.sigma.getCamera().animatedZoom({ duration: 200 });
  }

  zoomOut(): void {
    void this.sigma.getCamera().animatedUnzoom({ duration: 200 });
  }

  /** Fits the whole graph in the view. */
  fit(): void {
    void this.sigma.getCamera().animatedReset({ duration: 300 });
  }

  pan(dx: number, dy: number): void {
    const camera = this.sigma.getCamera();
    const state = camera.getState();
    camera.setState({ x: state.x + dx * state.ratio, y: state.y + dy * state.ratio });
  }

  /** Centres the camera on a node and zooms in a little. */
  focusNode(id: string): void {
    if (this.killed) return;
    const d = this.sigma.getNodeDisplayData(id);
    if (!d) return;
    const camera = this.sigma.getCamera();
    const state = camera.getState();
    // small graphs are readable whole: only pan; in big ones zoom in to the node's surroundings
    const ratio = this.model.graph.order > 150 ? Math.min(state.ratio, 0.4) : state.ratio;
    const target = { x: d.x, y: d.y, ratio, angle: state.angle };
    if (window.matchMedia?.('(max-width: 760px)').matches) {
      // the properties panel covers the lower part of the graph on narrow screens: show the node above it
      const { width, height } = this.sigma.getDimensions();
      const p = this.sigma.viewportToFramedGraph({ x: width / 2, y: height * 0.2 }, { cameraState: target });
      target.x += d.x - p.x;
      target.y += d.y - p.y;
    }
    void camera.animate(target, { duration: 400 });
  }

  /** Centres on the middle of an edge. */
  focusEdge(id: string): void {
    if (this.killed) return;
    const g = this.model.graph;
    if (!g.hasEdge(id)) return;
    const [a, b] = g.extremities(id).map((n) => this.sigma.getNodeDisplayData(n));
    if (!a || !b) return;
    const camera = this.sigma.getCamera();
    const ratio = this.model.graph.order > 150 ? Math.min(camera.getState().ratio, 0.5) : camera.getState().ratio;
    void camera.animate({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2, ratio }, { duration: 400 });
  }

  /** The page became visible again (it was rendered into a hidden container). */
  wake(): void {
    if (this.killed) return;
    this.sigma.resize(true);
    this.sigma.refresh();
  }

  // ---- layouts ----

  startForce(ms?: number): void {
    if (this.killed) return;
    this.layouts.startForce(ms);
  }

  stopForce(): void {
    this.layouts.stop();
  }

  applyLayout(name: LayoutName): void {
    if (this.killed) return;
    this.layouts.apply(name);
  }

  /** Spreads overlapping nodes a little (after new nodes were placed), camera untouched. */
  tidy(): void {
    if (this.killed) return;
    if (!this.layouts.running && this.model.graph.order <= NOVERLAP_AFTER_FORCE_MAX) this.layouts.apply('noverlap', false);
  }

  /** A fresh graph was loaded: forget the drag box, fit, and let the force layout settle it. */
  afterLoad(settle: boolean): void {
    if (this.killed) return;
    this.layouts.stop();
    this.sigma.setCustomBBox(null);
    this.sigma.getCamera().setState({ x: 0.5, y: 0.5, ratio: 1, angle: 0 });
    if (settle) this.layouts.settle();
  }
}
