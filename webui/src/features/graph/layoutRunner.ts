// Runs the layouts on the model's graph: ForceAtlas2 in a web worker (stopped after a while, or
// when the page is hidden), and the one-shot layouts animated to their positions.
import FA2Layout from 'graphology-layout-forceatlas2/worker';
import type Sigma from 'sigma';
import { animateNodes } from 'sigma/utils';
import { autoForceMs, forceSettings, layoutPositions, type Positions, shouldAnimate } from './layouts';
import type { GraphModel } from './model';
import type { EdgeAttrs, LayoutName, NodeAttrs } from './types';

/** A layout started by hand stops by itself after this long (it keeps a CPU core busy). */
export const FORCE_MAX_MS = 20_000;
/** After the automatic force layout, overlapping nodes are spread up to this graph size. */
export const NOVERLAP_AFTER_FORCE_MAX = 1500;

export class LayoutRunner {
  private fa2: FA2Layout | null = null;
  private fa2Timer: ReturnType<typeof setTimeout> | null = null;
  private stopAnimation: (() => void) | null = null;

  constructor(
    private readonly model: GraphModel,
    private readonly sigma: Sigma<NodeAttrs, EdgeAttrs>,
    /** Fits the camera to the graph (after a one-shot layout). */
    private readonly fit: () => void,
  ) {}

  get running(): boolean {
    return this.fa2?.isRunning() ?? false;
  }

  /** Starts ForceAtlas2 in a worker; it stops by itself after `ms` (then spreads overlapping nodes if asked). */
  startForce(ms = FORCE_MAX_MS, thenNoverlap = false): void {
    this.stop();
    const g = this.model.graph;
    if (g.order < 2) return;
    this.sigma.setCustomBBox(null);
    this.fa2 = new FA2Layout(g, { settings: forceSettings(g), getEdgeWeight: 'weight' });
    this.fa2.start();
    this.model.setLayout('force', true);
    this.fa2Timer = setTimeout(() => {
      this.stop();
      if (thenNoverlap && g === this.model.graph && g.order <= NOVERLAP_AFTER_FORCE_MAX) this.apply('noverlap', false);
    }, ms);
  }

  /** The automatic layout after a load: ForceAtlas2 for a while, then overlaps removed. */
  settle(): void {
    const ms = autoForceMs(this.model.graph.order);
    if (ms > 0) this.startForce(ms, true);
  }

  /** Stops ForceAtlas2 and any animation. */
  stop(): void {
    this.stopAnimation?.();
    this.stopAnimation = null;
    if (this.fa2Timer) clearTimeout(this.fa2Timer);
    this.fa2Timer = null;
    if (this.fa2) {
      this.fa2.kill();
      this.fa2 = null;
    }
    this.model.setLayoutRunning(false);
  }

  /** How many graph units a screen pixel is (noverlap works in graph units, node sizes are pixels). */
  private sizeToGraph(): number {
    const g = this.model.graph;
    let minX = Infinity;
    let maxX = -Infinity;
    let minY = Infinity;
    let maxY = -Infinity;
    g.forEachNode((_k, a) => {
      if (a.x < minX) minX = a.x;
      if (a.x > maxX) maxX = a.x;
      if (a.y < minY) minY = a.y;
      if (a.y > maxY) maxY = a.y;
    });
    const extent = Math.max(maxX - minX, maxY - minY);
    const { width, height } = this.sigma.getDimensions();
    const px = Math.max(50, Math.min(width, height) - 48);
    return Number.isFinite(extent) && extent > 0 ? extent / px : 1;
  }

  /**
   * Moves the nodes to a layout (animated for graphs that are not too big). `chosen`: picked by
   * the user (shown as the current layout, the camera fits the result); else a quiet clean-up that
   * leaves the camera where the user put it.
   */
  apply(name: LayoutName, chosen = true): void {
    if (name === 'force') {
      this.startForce();
      return;
    }
    this.stop();
    const g = this.model.graph;
    const targets: Positions = layoutPositions(g, name, this.sizeToGraph());
    if (chosen) {
      this.model.setLayout(name, false);
      this.sigma.setCustomBBox(null);
    }
    if (shouldAnimate(g.order)) {
      this.stopAnimation = animateNodes(g, targets, { duration: 450, easing: 'quadraticInOut' }, () => {
        this.stopAnimation = null;
        if (chosen) this.fit();
      });
    } else {
      g.updateEachNodeAttributes(
        (k, a) => {
          const p = targets[k];
          return p ? { ...a, x: p.x, y: p.y } : a;
        },
        { attributes: ['x', 'y'] },
      );
      if (chosen) this.fit();
    }
  }
}
