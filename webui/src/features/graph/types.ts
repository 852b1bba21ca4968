// The shapes the graph page works with: graphology attributes of nodes and edges, and what is
// selected. Nodes are keyed by entity name; edges by the unordered pair of their endpoints.
import type Graph from 'graphology';

export interface NodeAttrs {
  /** Position (graph coordinates). */
  x: number;
  y: number;
  /** Rendered size (screen pixels at ratio 1): grows with the degree. */
  size: number;
  /** Fill colour from the entity type. */
  color: string;
  /** The entity name (what sigma draws). */
  label: string;
  /** The entity type as the server gives it ("" when unknown). */
  entityType: string;
  description: string;
  /** Chunk ids joined with `<SEP>`. */
  sourceId: string;
  /** File paths joined with `<SEP>`. */
  filePath: string;
  /** Every property the server sent (shown in the properties panel). */
  props: Record<string, unknown>;
  /** Pinned while dragged (ForceAtlas2 leaves fixed nodes alone). */
  fixed?: boolean;
}

export interface EdgeAttrs {
  /** The relation's endpoints as the server names them (source_id / target_id of edits). */
  src: string;
  tgt: string;
  size: number;
  color?: string;
  /** Never set: named only in update hints (see applySizes). */
  zIndex?: number;
  /** Keywords, drawn when edge labels are on. */
  label: string;
  description: string;
  keywords: string;
  weight: number;
  sourceId: string;
  filePath: string;
  props: Record<string, unknown>;
}

export type KGraph = Graph<NodeAttrs, EdgeAttrs>;

export type Selection = { kind: 'node'; id: string } | { kind: 'edge'; id: string };

/** Entities and relations to emphasise (from the retrieval page); others are dimmed. */
export interface Highlight {
  nodes: Set<string>;
  edges: Set<string>;
  /** Shown in the banner, e.g. "from the answer". */
  reason: string;
}

export type LayoutName = 'force' | 'circular' | 'random' | 'circlepack' | 'noverlap';
