// "Show in graph" from the retrieval page: which labels to load (a neighbourhood of each of the
// first entities, merged) and which nodes and edges to highlight.
import type { GraphFocus } from '../../state/navigation';
import { pairKey } from './graphData';
import type { Highlight, KGraph } from './types';

/** How many entities get their neighbourhood loaded. */
export const FOCUS_LOAD_LIMIT = 10;

/** The labels to load for a focus: its label, else the first distinct entities. */
export function focusLabels(focus: GraphFocus): string[] {
  if (focus.label && focus.label.trim() !== '') return [focus.label.trim()];
  const out: string[] = [];
  const add = (name: string | undefined) => {
    const n = name?.trim();
    if (n && !out.includes(n) && out.length < FOCUS_LOAD_LIMIT) out.push(n);
  };
  add(focus.select);
  for (const e of focus.entities) add(e);
  for (const [s, t] of focus.relations) {
    add(s);
    add(t);
  }
  return out;
}

/** The highlight of a focus: its entities and relations (and the relations' endpoints). */
export function focusHighlight(focus: GraphFocus, reason = 'from the answer'): Highlight {
  const nodes = new Set<string>();
  const edges = new Set<string>();
  for (const e of focus.entities) if (e.trim()) nodes.add(e.trim());
  for (const [s, t] of focus.relations) {
    nodes.add(s);
    nodes.add(t);
    edges.add(pairKey(s, t));
  }
  if (focus.select) nodes.add(focus.select);
  return { nodes, edges, reason };
}

/** How much of a highlight the loaded graph shows ("7 of 9 entities shown"). */
export function highlightCoverage(graph: KGraph, h: Highlight): { nodes: number; totalNodes: number; edges: number; totalEdges: number } {
  let nodes = 0;
  let edges = 0;
  for (const n of h.nodes) if (graph.hasNode(n)) nodes++;
  for (const e of h.edges) if (graph.hasEdge(e)) edges++;
  return { nodes, totalNodes: h.nodes.size, edges, totalEdges: h.edges.size };
}
