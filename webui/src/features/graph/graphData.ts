// Building and changing the graphology graph from the server's answers: merging /graphs answers
// (deduplicated, new nodes placed near the node they were expanded from), node sizes by degree,
// renames, merges and removals done locally after an edit.
import Graph from 'graphology';
import type { GraphEdge, GraphNode, KnowledgeGraph } from '../../api/types';
import type { EdgeAttrs, KGraph, NodeAttrs } from './types';

/** The key of the edge between two entities (relations are undirected: the order does not matter). */
export function pairKey(a: string, b: string): string {
  return a <= b ? `${a}\u0001${b}` : `${b}\u0001${a}`;
}

export function createGraph(): KGraph {
  return new Graph<NodeAttrs, EdgeAttrs>({ type: 'undirected', multi: false, allowSelfLoops: true });
}

function text(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : String(v);
}

function num(v: unknown, fallback: number): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : fallback;
}

/** A number in [0, 1) from a string and a salt: the same node lands at the same place every time. */
export function seededUnit(id: string, salt: number): number {
  let h = (0x811c9dc5 ^ salt) >>> 0;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return (h >>> 0) / 4294967296;
}

/** Where a node goes when there is nothing to place it near. */
export const SPREAD = 100;

export function nodeAttrsFrom(node: GraphNode, colorOf: (type: string) => string): Omit<NodeAttrs, 'x' | 'y' | 'size'> {
  const p = node.properties ?? {};
  const entityType = text(p.entity_type);
  return {
    label: text(p.entity_id) || node.id,
    color: colorOf(entityType),
    entityType,
    description: text(p.description),
    sourceId: text(p.source_id),
    filePath: text(p.file_path),
    props: { ...p },
  };
}

export function edgeAttrsFrom(edge: GraphEdge): Omit<EdgeAttrs, 'size'> {
  const p = edge.properties ?? {};
  const keywords = text(p.keywords);
  return {
    src: edge.source,
    tgt: edge.target,
    label: keywords,
    description: text(p.description),
    keywords,
    weight: num(p.weight, 1),
    sourceId: text(p.source_id),
    filePath: text(p.file_path),
    props: { ...p },
  };
}

/** Positions on a ring around `center` for `count` new nodes. */
export function ringPositions(center: { x: number; y: number }, count: number, radius: number, salt = 0): { x: number; y: number }[] {
  const out: { x: number; y: number }[] = [];
  const offset = seededUnit(String(count), salt) * Math.PI * 2;
  for (let i = 0; i < count; i++) {
    const angle = offset + (i / Math.max(1, count)) * Math.PI * 2;
    // a little jitter in the radius so that big expansions do not form a perfect circle
    const r = radius * (0.75 + 0.25 * seededUnit(String(i), salt + 7));
    out.push({ x: center.x + Math.cos(angle) * r, y: center.y + Math.sin(angle) * r });
  }
  return out;
}

/** How far an expanded node's new neighbours are placed: its current neighbours' mean distance. */
export function expansionRadius(graph: KGraph, anchor: string): number {
  const a = graph.getNodeAttributes(anchor);
  let sum = 0;
  let n = 0;
  graph.forEachNeighbor(anchor, (_k, b) => {
    const d = Math.hypot(b.x - a.x, b.y - a.y);
    if (d > 0) {
      sum += d;
      n++;
    }
  });
  if (n > 0) return sum / n;
  // no neighbours yet: a share of the graph's extent
  let minX = Infinity;
  let maxX = -Infinity;
  graph.forEachNode((_k, p) => {
    minX = Math.min(minX, p.x);
    maxX = Math.max(maxX, p.x);
  });
  const width = Number.isFinite(maxX - minX) && maxX > minX ? maxX - minX : SPREAD;
  return width / Math.max(4, Math.sqrt(graph.order) * 2);
}

export interface MergeOptions {
  colorOf: (type: string) => string;
  /** Place new nodes around this node (an expansion). */
  anchor?: string | null;
}

export interface MergeResult {
  addedNodes: string[];
  addedEdges: string[];
  /** Nodes that were there already (their properties are refreshed). */
  updatedNodes: string[];
}

/** Merges a /graphs answer into `graph`: nodes and edges already there are updated, not duplicated. */
export function mergeKnowledgeGraph(graph: KGraph, kg: KnowledgeGraph, options: MergeOptions): MergeResult {
  const result: MergeResult = { addedNodes: [], addedEdges: [], updatedNodes: [] };
  const fresh: GraphNode[] = [];
  const freshIds = new Set<string>();
  for (const node of kg.nodes ?? []) {
    if (!node || typeof node.id !== 'string') continue;
    if (graph.hasNode(node.id)) {
      graph.mergeNodeAttributes(node.id, nodeAttrsFrom(node, options.colorOf));
      result.updatedNodes.push(node.id);
    } else if (!freshIds.has(node.id)) {
      freshIds.add(node.id);
      fresh.push(node);
    }
  }
  const anchor = options.anchor && graph.hasNode(options.anchor) ? options.anchor : null;
  const positions = anchor
    ? ringPositions(graph.getNodeAttributes(anchor), fresh.length, expansionRadius(graph, anchor), graph.order)
    : fresh.map((n) => ({
        x: (seededUnit(n.id, 1) * 2 - 1) * SPREAD,
        y: (seededUnit(n.id, 2) * 2 - 1) * SPREAD,
      }));
  fresh.forEach((node, i) => {
    const pos = positions[i] ?? { x: 0, y: 0 };
    graph.addNode(node.id, { ...nodeAttrsFrom(node, options.colorOf), x: pos.x, y: pos.y, size: 1 });
    result.addedNodes.push(node.id);
  });
  for (const edge of kg.edges ?? []) {
    if (!edge || !graph.hasNode(edge.source) || !graph.hasNode(edge.target)) continue;
    const key = pairKey(edge.source, edge.target);
    const attrs = edgeAttrsFrom(edge);
    if (graph.hasEdge(key)) {
      graph.mergeEdgeAttributes(key, attrs);
    } else {
      graph.addEdgeWithKey(key, edge.source, edge.target, { ...attrs, size: 1 });
      result.addedEdges.push(key);
    }
  }
  applySizes(graph);
  return result;
}

/** Node size from its degree: the square root spreads hubs and leaves apart; big graphs get smaller dots. */
export function nodeSize(degree: number, maxDegree: number, order: number): number {
  const [min, max] = order > 2000 ? [2, 10] : order > 300 ? [3, 14] : [5, 18];
  if (maxDegree <= 0) return min;
  return min + (max - min) * Math.sqrt(Math.min(degree, maxDegree) / maxDegree);
}

/** Edge thickness from its weight (relative to the heaviest edge). */
export function edgeSize(weight: number, maxWeight: number, size: number): number {
  const [min, max] = size > 5000 ? [0.5, 1.5] : [1, 4];
  if (!(maxWeight > 0) || !(weight > 0)) return min;
  return min + (max - min) * Math.min(1, weight / maxWeight);
}

export function applySizes(graph: KGraph): void {
  let maxDegree = 0;
  graph.forEachNode((k) => {
    maxDegree = Math.max(maxDegree, graph.degree(k));
  });
  const order = graph.order;
  // Sigma repaints without re-indexing unless the hints name a "layout" field, which fails for
  // items added since its last pass: no hint for nodes (= everything changed), and for edges
  // (where no hint means "nothing layout-related") a hint that includes zIndex.
  graph.updateEachNodeAttributes((k, a) => ({ ...a, size: nodeSize(graph.degree(k), maxDegree, order) }));
  let maxWeight = 0;
  graph.forEachEdge((_k, a) => {
    if (a.weight > maxWeight) maxWeight = a.weight;
  });
  const size = graph.size;
  graph.updateEachEdgeAttributes((_k, a) => ({ ...a, size: edgeSize(a.weight, maxWeight, size) }), {
    attributes: ['size', 'zIndex'],
  });
}

/** Re-points one edge from `from` to `to`, keeping the relation's data. An edge that would
 *  become a self-loop (between the two merged nodes) is dropped, as the server does; an edge that
 *  duplicates one of `to`'s keeps `to`'s. */
function repoint(graph: KGraph, edge: string, from: string, to: string): void {
  const attrs = graph.getEdgeAttributes(edge);
  const other = graph.opposite(from, edge);
  graph.dropEdge(edge);
  if (other === to || other === from) return;
  const key = pairKey(to, other);
  if (graph.hasEdge(key)) return;
  const src = attrs.src === from ? to : attrs.src;
  const tgt = attrs.tgt === from ? to : attrs.tgt;
  graph.addEdgeWithKey(key, to, other, { ...attrs, src, tgt });
}

/** Renames a node locally (after a successful rename on the server). False when `from` is not loaded. */
export function renameNode(graph: KGraph, from: string, to: string, changes: Partial<NodeAttrs> = {}): boolean {
  if (!graph.hasNode(from) || from === to) {
    if (graph.hasNode(from)) graph.mergeNodeAttributes(from, changes);
    return graph.hasNode(from);
  }
  const attrs = graph.getNodeAttributes(from);
  if (graph.hasNode(to)) {
    graph.mergeNodeAttributes(to, changes);
  } else {
    graph.addNode(to, { ...attrs, ...changes, label: to, props: { ...attrs.props, ...(changes.props ?? {}), entity_id: to } });
  }
  for (const edge of graph.edges(from)) repoint(graph, edge, from, to);
  graph.dropNode(from);
  applySizes(graph);
  return true;
}

/** Merges `sources` into `target` locally (after /graph/entities/merge or a rename-merge). */
export function mergeNodesInto(graph: KGraph, sources: string[], target: string, changes: Partial<NodeAttrs> = {}): void {
  const present = sources.filter((s) => s !== target && graph.hasNode(s));
  if (!graph.hasNode(target)) {
    const first = present[0];
    if (first === undefined) return;
    renameNode(graph, first, target, changes);
    present.shift();
  } else {
    graph.mergeNodeAttributes(target, changes);
  }
  for (const s of present) {
    for (const edge of graph.edges(s)) repoint(graph, edge, s, target);
    graph.dropNode(s);
  }
  applySizes(graph);
}

/** Removes nodes from the view (hide / prune, or after a deletion). */
export function removeNodes(graph: KGraph, ids: string[]): void {
  for (const id of ids) if (graph.hasNode(id)) graph.dropNode(id);
  applySizes(graph);
}

/** The degree of each type key, for the legend: how many nodes of each type are loaded. */
export function typeCounts(graph: KGraph, keyOf: (type: string) => string): Map<string, { type: string; count: number; color: string }> {
  const counts = new Map<string, { type: string; count: number; color: string }>();
  graph.forEachNode((_k, a) => {
    const key = keyOf(a.entityType);
    const entry = counts.get(key);
    if (entry) entry.count++;
    else counts.set(key, { type: a.entityType.trim() || 'unknown', count: 1, color: a.color });
  });
  return counts;
}
