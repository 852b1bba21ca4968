// How each node and edge is drawn, given the view state: hidden entity types, the hovered node's
// neighbourhood (faded around it in small graphs, only named in big ones), the selection, the
// entities picked for a merge, the highlight from the retrieval page and edge labels. Sigma calls
// these for every node and edge on each full refresh (its reducers); they get a shallow copy of
// the attributes and return what to draw.
import type { EdgeDisplayData, NodeDisplayData } from 'sigma/types';
import { mixColors, typeKey } from './colors';
import type { ThemeColors } from './drawing';
import type { GraphModel, GraphViewState } from './model';
import type { EdgeAttrs, NodeAttrs } from './types';

/** A hovered node's neighbours are named when there are at most this many. */
export const HOVER_LABELS_MAX = 40;

/** What the renderer knows that decides the drawing (kept up to date by the renderer). */
export interface StyleState {
  model: GraphModel;
  view: GraphViewState;
  /** Keys of the hidden entity types. */
  hiddenTypes: Set<string>;
  hovered: string | null;
  /** The hovered node and its neighbours. */
  hoverSet: Set<string> | null;
  hoveredEdge: string | null;
  /** A big graph (cheaper drawing, no fading on hover). */
  big: boolean;
  colors: ThemeColors;
  /** Dimmed versions of colours (cleared when the theme changes). */
  dimmed: Map<string, string>;
}

/** Nothing hovered, hidden or big yet: the state of a fresh renderer. */
export function initialStyle(model: GraphModel, colors: ThemeColors): StyleState {
  return {
    model,
    view: model.state,
    hiddenTypes: new Set(model.state.hiddenTypes),
    hovered: null,
    hoverSet: null,
    hoveredEdge: null,
    big: false,
    colors,
    dimmed: new Map(),
  };
}

/** A colour faded towards the background (what is not in focus). */
export function dim(st: StyleState, color: string): string {
  let d = st.dimmed.get(color);
  if (!d) {
    d = mixColors(color, st.colors.bg, 0.78);
    st.dimmed.set(color, d);
  }
  return d;
}

export function styleNode(st: StyleState, node: string, data: NodeAttrs): Partial<NodeDisplayData> {
  const res: Partial<NodeDisplayData> & NodeAttrs = data as Partial<NodeDisplayData> & NodeAttrs;
  const v = st.view;
  if (st.hiddenTypes.size > 0 && st.hiddenTypes.has(typeKey(data.entityType))) {
    res.hidden = true;
    return res;
  }
  const sel = v.selected;
  if (sel?.kind === 'node' && sel.id === node) {
    res.highlighted = true;
    res.forceLabel = true;
    res.zIndex = 3;
  } else if (v.picked.length > 0 && v.picked.includes(node)) {
    res.highlighted = true;
    res.forceLabel = true;
    res.zIndex = 2;
  }
  if (st.hoverSet && !st.big) {
    // small graphs: everything outside the hovered neighbourhood fades
    if (!st.hoverSet.has(node)) {
      res.color = dim(st, data.color);
      res.label = '';
      res.zIndex = 0;
    } else {
      res.zIndex = Math.max(res.zIndex ?? 0, 1);
      if (node === st.hovered || st.hoverSet.size <= HOVER_LABELS_MAX) res.forceLabel = true;
    }
  } else if (st.hoverSet?.has(node) && (node === st.hovered || st.hoverSet.size <= HOVER_LABELS_MAX)) {
    // big graphs: only the neighbourhood is restyled (names shown), the rest stays as it is
    res.forceLabel = true;
  } else if (v.highlight) {
    if (v.highlight.nodes.has(node)) {
      res.forceLabel = true;
      res.zIndex = Math.max(res.zIndex ?? 0, 2);
    } else if (!(sel?.kind === 'node' && sel.id === node)) {
      res.color = dim(st, data.color);
      res.zIndex = 0;
    }
  }
  return res;
}

export function styleEdge(st: StyleState, edge: string, data: EdgeAttrs): Partial<EdgeDisplayData> {
  const res = data as Partial<EdgeDisplayData> & EdgeAttrs;
  const v = st.view;
  if (st.hiddenTypes.size > 0) {
    const g = st.model.graph;
    const [s, t] = g.extremities(edge);
    if (
      st.hiddenTypes.has(typeKey(g.getNodeAttribute(s, 'entityType'))) ||
      st.hiddenTypes.has(typeKey(g.getNodeAttribute(t, 'entityType')))
    ) {
      res.hidden = true;
      return res;
    }
  }
  const sel = v.selected;
  let emphasised = false;
  if (sel?.kind === 'edge' && sel.id === edge) {
    res.color = st.colors.primary;
    res.size = (data.size ?? 1) + 2;
    res.forceLabel = true;
    res.zIndex = 3;
    emphasised = true;
  } else if (sel?.kind === 'node' && (data.src === sel.id || data.tgt === sel.id)) {
    res.color = mixColors(st.colors.primary, st.colors.edge, 0.35);
    res.zIndex = 2;
    emphasised = true;
  }
  if (st.hovered && (data.src === st.hovered || data.tgt === st.hovered)) {
    res.color = st.colors.primary;
    res.zIndex = 2;
    emphasised = true;
  } else if (st.hovered && !st.big) {
    if (!emphasised) {
      res.color = dim(st, st.colors.edge);
      res.zIndex = 0;
    }
  } else if (v.highlight && !emphasised) {
    if (v.highlight.edges.has(edge)) {
      res.color = st.colors.primary;
      res.size = (data.size ?? 1) + 1;
      res.zIndex = 2;
      emphasised = true;
    } else {
      res.color = dim(st, st.colors.edge);
      res.zIndex = 0;
    }
  }
  if (edge === st.hoveredEdge) {
    res.size = (res.size ?? data.size ?? 1) + 1.5;
    res.forceLabel = true;
  }
  res.label = v.edgeLabels || res.forceLabel ? data.keywords : '';
  return res;
}
