// A synthetic knowledge graph for the rendering benchmark (`#/graph?synthetic=5000x20000`):
// communities of entities of a dozen types, hubs (preferential attachment), positions laid out
// by community so the benchmark measures rendering, not the layout. Loaded lazily: it is not in
// the page's bundle.
import type { GraphEdge, GraphNode, KnowledgeGraph } from '../../api/types';
import { pairKey, SPREAD } from './graphData';
import { type Positions, seededRandom } from './layouts';

const TYPES = [
  'person',
  'organization',
  'location',
  'event',
  'concept',
  'technology',
  'product',
  'document',
  'date',
  'category',
  'method',
  'artifact',
];

/** Parses "5000x20000" (nodes × edges); null when malformed or absurd. */
export function parseSynthetic(value: string | undefined): { nodes: number; edges: number } | null {
  const m = /^(\d{1,6})x(\d{1,7})$/.exec((value ?? '').trim());
  if (!m) return null;
  const nodes = Number(m[1]);
  const edges = Number(m[2]);
  if (nodes < 2 || nodes > 200_000 || edges > 2_000_000) return null;
  return { nodes, edges: Math.min(edges, (nodes * (nodes - 1)) / 2) };
}

export function syntheticGraph(nodeCount: number, edgeCount: number, seed = 42): { kg: KnowledgeGraph; positions: Positions } {
  const rng = seededRandom(seed);
  const communities = Math.max(1, Math.round(Math.sqrt(nodeCount) / 3));
  const nodes: GraphNode[] = [];
  const positions: Positions = {};
  const members: string[][] = Array.from({ length: communities }, () => []);
  for (let i = 0; i < nodeCount; i++) {
    const c = i % communities;
    const id = `Entity ${i}`;
    const type = TYPES[(c + (rng() < 0.3 ? Math.floor(rng() * TYPES.length) : 0)) % TYPES.length] ?? 'concept';
    nodes.push({
      id,
      labels: [id],
      properties: {
        entity_id: id,
        entity_type: type,
        description: `Synthetic ${type} number ${i} of community ${c}.`,
        source_id: `chunk-${c}`,
        file_path: `synthetic-${c}.txt`,
      },
    });
    members[c]?.push(id);
    // communities on a spiral, members around their centre
    const angle = c * 2.399963;
    const radius = SPREAD * Math.sqrt((c + 0.5) / communities);
    const spread = (SPREAD / Math.sqrt(communities)) * 0.6;
    const r = spread * Math.sqrt(rng());
    const t = rng() * Math.PI * 2;
    positions[id] = { x: Math.cos(angle) * radius + Math.cos(t) * r, y: Math.sin(angle) * radius + Math.sin(t) * r };
  }
  const seen = new Set<string>();
  const edges: GraphEdge[] = [];
  // preferential attachment: low indexes of a community are its hubs
  const pick = (list: string[]) => list[Math.floor(Math.pow(rng(), 2.2) * list.length)];
  let guard = edgeCount * 20;
  while (edges.length < edgeCount && guard-- > 0) {
    const c = Math.floor(rng() * communities);
    const from = members[c];
    const to = rng() < 0.85 ? from : members[Math.floor(rng() * communities)];
    if (!from || !to) continue;
    const a = from[Math.floor(rng() * from.length)];
    const b = pick(to);
    if (!a || !b || a === b) continue;
    const key = pairKey(a, b);
    if (seen.has(key)) continue;
    seen.add(key);
    edges.push({
      id: `${a}-${b}`,
      type: 'DIRECTED',
      source: a,
      target: b,
      properties: { weight: 1 + Math.floor(rng() * 9), description: `${a} relates to ${b}.`, keywords: 'synthetic, link' },
    });
  }
  return { kg: { nodes, edges, is_truncated: false }, positions };
}
