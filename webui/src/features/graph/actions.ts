// What the graph page does with the server: load a label's subgraph (an older answer never
// replaces a newer one), expand a node, load a focus from the retrieval page, and the edits —
// each applied to the model afterwards so the view updates without a reload.
import { describeError, isAbort } from '../../api/errors';
import { t } from '../../i18n';
import type { Endpoints } from '../../api/endpoints';
import type { GraphEditResponse, KnowledgeGraph } from '../../api/types';
import type { GraphFocus } from '../../state/navigation';
import { notify } from '../../state/notices';
import type { EntityEdit } from './editPayload';
import { focusHighlight, focusLabels } from './focus';
import { pairKey } from './graphData';
import type { GraphModel } from './model';
import { Latest } from './suggest';

export type GraphServer = Pick<
  Endpoints,
  | 'graph'
  | 'editEntity'
  | 'editRelation'
  | 'createEntity'
  | 'createRelation'
  | 'mergeEntities'
  | 'deleteEntity'
  | 'deleteRelation'
  | 'entityExists'
>;

export interface LoadOptions {
  depth: number;
  maxNodes: number;
}

export interface EntityEditOutcome {
  response: GraphEditResponse;
  /** The entity's name afterwards (renamed, or merged into). */
  finalName: string;
  merged: boolean;
}

export class GraphActions {
  private readonly latest = new Latest();
  private controller: AbortController | null = null;

  constructor(
    private readonly model: GraphModel,
    private readonly server: GraphServer,
  ) {}

  /** Starts a load; the previous one is aborted and its answer ignored. */
  private begin(): { id: number; signal: AbortSignal } {
    this.controller?.abort();
    this.controller = new AbortController();
    return { id: this.latest.next(), signal: this.controller.signal };
  }

  /** Aborts the load in flight and ignores its answer (the page goes away). */
  dispose(): void {
    this.controller?.abort();
    this.controller = null;
    this.latest.next();
  }

  /** Loads the subgraph of `label` in place of the current graph. Resolves true when shown. */
  async load(label: string, opts: LoadOptions): Promise<boolean> {
    const { id, signal } = this.begin();
    this.model.setLoading(label);
    try {
      const kg = await this.server.graph(label, opts.depth, opts.maxNodes, signal);
      if (!this.latest.isLatest(id)) return false;
      this.model.replace(kg, label);
      this.model.setHighlight(null);
      return true;
    } catch (e) {
      if (!this.latest.isLatest(id) || isAbort(e)) return false;
      this.model.setError(describeError(e));
      return false;
    }
  }

  /** Shows an already built graph (the synthetic benchmark graph). */
  show(kg: KnowledgeGraph, label: string, positions?: Record<string, { x: number; y: number }>): void {
    this.begin();
    this.model.replace(kg, label, positions);
  }

  /** Adds a node's neighbours (depth 1) next to it. Returns how many nodes were new. */
  async expand(node: string, maxNodes: number): Promise<number> {
    const kg = await this.server.graph(node, 1, maxNodes);
    return this.model.merge(kg, node).added;
  }

  /**
   * Loads what a focus names (the neighbourhood of each of its first entities, merged) and
   * highlights its entities and relations. Resolves the number of entities found.
   */
  async loadFocus(focus: GraphFocus, opts: LoadOptions): Promise<number> {
    const labels = focusLabels(focus);
    const { id, signal } = this.begin();
    this.model.setLoading(focus.label ?? labels[0] ?? null);
    const depth = focus.label ? opts.depth : 1;
    const perLabel = focus.label ? opts.maxNodes : Math.max(20, Math.floor(opts.maxNodes / Math.max(1, labels.length)));
    try {
      const answers = await Promise.all(
        labels.map((l) => this.server.graph(l, depth, perLabel, signal).catch((e: unknown) => {
          if (isAbort(e)) throw e;
          return null;
        })),
      );
      if (!this.latest.isLatest(id)) return 0;
      const [first, ...rest] = answers.filter((a): a is KnowledgeGraph => a !== null);
      if (!first) {
        this.model.replace({ nodes: [], edges: [], is_truncated: false }, focus.label ?? labels[0] ?? '*');
      } else {
        this.model.replace(first, focus.label ?? labels[0] ?? '*');
        for (const kg of rest) this.model.merge(kg);
      }
      const highlight = focusHighlight(focus);
      this.model.setHighlight(highlight.nodes.size + highlight.edges.size > 0 ? highlight : null);
      const select = focus.select ?? focus.entities[0];
      if (select && this.model.graph.hasNode(select)) this.model.select({ kind: 'node', id: select });
      let found = 0;
      for (const n of highlight.nodes) if (this.model.graph.hasNode(n)) found++;
      return found;
    } catch (e) {
      if (!this.latest.isLatest(id) || isAbort(e)) return 0;
      this.model.setError(describeError(e));
      return 0;
    }
  }

  /**
   * Applies a saved change to the view. The server has it already: should the local update fail,
   * the user is told to reload instead of seeing an error for a change that worked.
   */
  private local(apply: () => void): void {
    try {
      apply();
    } catch (e) {
      notify('info', t('graph.errors.savedReload', { error: describeError(e) }));
    }
  }

  /** Re-reads a node's neighbourhood after an edit (the server merged descriptions, moved relations). */
  private async refreshAround(name: string): Promise<void> {
    try {
      const kg = await this.server.graph(name, 1, 200);
      this.model.merge(kg, name);
    } catch {
      // the local update stands
    }
  }

  async editEntity(edit: EntityEdit, allowMerge: boolean): Promise<EntityEditOutcome> {
    const response = await this.server.editEntity(edit.entityName, edit.updatedData, edit.rename !== null, allowMerge);
    const summary = response.operation_summary;
    const merged = Boolean(summary?.merged);
    const finalName = summary?.final_entity || (merged ? summary?.target_entity : null) || edit.rename || edit.entityName;
    if (merged) {
      this.local(() => this.model.applyMerge([edit.entityName], finalName, response.data));
      await this.refreshAround(finalName);
    } else {
      this.local(() => this.model.applyEntityEdit(edit.entityName, finalName, response.data));
    }
    return { response, finalName, merged };
  }

  async entityExists(name: string): Promise<boolean> {
    return (await this.server.entityExists(name)).exists;
  }

  async editRelation(edge: string, updatedData: Record<string, unknown>): Promise<GraphEditResponse> {
    const attrs = this.model.graph.getEdgeAttributes(edge);
    const response = await this.server.editRelation(attrs.src, attrs.tgt, updatedData);
    this.local(() => this.model.applyRelationEdit(edge, response.data));
    return response;
  }

  async createEntity(name: string, data: Record<string, unknown>, near: string | null): Promise<GraphEditResponse> {
    const response = await this.server.createEntity(name, data);
    this.local(() => {
      this.model.addEntity(name, response.data ?? data, near);
      this.model.select({ kind: 'node', id: name });
    });
    return response;
  }

  async createRelation(source: string, target: string, data: Record<string, unknown>): Promise<GraphEditResponse> {
    const response = await this.server.createRelation(source, target, data);
    // an end that is not shown yet is brought in with its neighbourhood
    for (const end of [source, target]) {
      if (!this.model.graph.hasNode(end)) {
        try {
          this.model.merge(await this.server.graph(end, 1, 50), this.model.graph.hasNode(source) ? source : null);
        } catch {
          // shown on the next load
        }
      }
    }
    this.local(() => {
      const key = this.model.addRelation(source, target, response.data ?? data);
      if (key) this.model.select({ kind: 'edge', id: key });
    });
    return response;
  }

  async mergeEntities(sources: string[], target: string): Promise<GraphEditResponse> {
    const response = await this.server.mergeEntities(sources, target);
    const merged = (response.data?.merged_entity ?? undefined) as Record<string, unknown> | undefined;
    this.local(() => this.model.applyMerge(sources, target, merged));
    await this.refreshAround(target);
    if (this.model.graph.hasNode(target)) this.model.select({ kind: 'node', id: target });
    return response;
  }

  async deleteEntity(name: string): Promise<string> {
    const r = await this.server.deleteEntity(name);
    this.local(() => this.model.removeEntity(name));
    return r.message;
  }

  async deleteRelation(edge: string): Promise<string> {
    const attrs = this.model.graph.getEdgeAttributes(edge);
    const r = await this.server.deleteRelation(attrs.src, attrs.tgt);
    this.local(() => this.model.removeRelation(edge));
    return r.message;
  }
}

/** The edge key of a relation named by its ends (for selecting a relation by name). */
export const relationKey = pairKey;
