// Layout maths: target positions of the one-shot layouts (circular, random, circle-pack by entity
// type, noverlap) and ForceAtlas2's settings inferred from the graph. Pure: the renderer animates
// to the positions, and runs ForceAtlas2 in a web worker.
import { circlepack, circular } from 'graphology-layout';
import { t } from '../../i18n';
import forceAtlas2, { type ForceAtlas2Settings } from 'graphology-layout-forceatlas2';
import noverlap from 'graphology-layout-noverlap';
import { SPREAD } from './graphData';
import type { KGraph, LayoutName } from './types';

export type Positions = Record<string, { x: number; y: number }>;

export const LAYOUTS: { name: LayoutName; label: string }[] = [
  layout('force', 'graph.layoutForce'),
  layout('circular', 'graph.layoutCircular'),
  layout('circlepack', 'graph.layoutCirclepack'),
  layout('random', 'graph.layoutRandom'),
  layout('noverlap', 'graph.layoutNoverlap'),
];

/** A layout whose label is read in the UI's language each time it is shown. */
function layout(name: LayoutName, key: string): { name: LayoutName; label: string } {
  return {
    name,
    get label() {
      return t(key);
    },
  };
}

/** A small seeded random generator (mulberry32): layouts repeat for the same graph. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Target positions of a one-shot layout. `sizeToGraph` converts node sizes (screen pixels) to
 * graph units for noverlap (how many graph units one pixel is at the current zoom).
 */
export function layoutPositions(graph: KGraph, name: Exclude<LayoutName, 'force'>, sizeToGraph = 1): Positions {
  switch (name) {
    case 'circular':
      return circular(graph, { scale: SPREAD }) as Positions;
    case 'random': {
      // seeded (graphology's random layout uses Math.random): the same graph gets the same layout
      const rng = seededRandom(graph.order * 31 + graph.size);
      const out: Positions = {};
      graph.forEachNode((k) => {
        out[k] = { x: (rng() * 2 - 1) * SPREAD, y: (rng() * 2 - 1) * SPREAD };
      });
      return out;
    }
    case 'circlepack':
      return circlepack(graph, {
        hierarchyAttributes: ['entityType'],
        scale: SPREAD / 10,
        rng: seededRandom(graph.order),
      });
    case 'noverlap':
      return noverlap(graph, {
        maxIterations: graph.order > 2000 ? 60 : 150,
        inputReducer: (_k, a) => ({ x: a.x, y: a.y, size: (a.size ?? 1) * sizeToGraph }),
        outputReducer: (_k, a) => ({ x: a.x, y: a.y }),
        settings: { margin: 2 * sizeToGraph, ratio: 1.1, expansion: 1.1 },
      });
  }
}

/** ForceAtlas2 settings for this graph (graphology's inference, Barnes-Hut from a few hundred nodes). */
export function forceSettings(graph: KGraph): ForceAtlas2Settings {
  const inferred = forceAtlas2.inferSettings(graph);
  return {
    ...inferred,
    barnesHutOptimize: graph.order > 800,
    // edge weights from the extraction range from 1 to 10: let them count, but not dominate
    edgeWeightInfluence: 0.5,
  };
}

/** How long ForceAtlas2 runs by itself after a load (ms): longer for bigger graphs. */
export function autoForceMs(order: number): number {
  if (order <= 1) return 0;
  return Math.min(8000, 1500 + order * 4);
}

/** Whether to animate the move to a layout's positions (cheap enough below this size). */
export function shouldAnimate(order: number): boolean {
  return order <= 2500;
}

/** The position of a node's new neighbour when dropping nodes in the middle of the view. */
export function centroid(graph: KGraph, ids: string[]): { x: number; y: number } {
  let x = 0;
  let y = 0;
  let n = 0;
  for (const id of ids) {
    if (!graph.hasNode(id)) continue;
    const a = graph.getNodeAttributes(id);
    x += a.x;
    y += a.y;
    n++;
  }
  return n > 0 ? { x: x / n, y: y / n } : { x: 0, y: 0 };
}
