// What is drawn over the graph: counts and truncation, loading / empty / error states, the
// highlight from the retrieval page, and the entities picked for a merge.
import { Spinner } from '../../components/Spinner';
import { plural } from '../../lib/text';
import { navigate } from '../../state/navigation';
import { highlightCoverage } from './focus';
import type { GraphModel, GraphViewState } from './model';
import { WHOLE_GRAPH } from './suggest';

export function GraphStatus({ model, view }: { model: GraphModel; view: GraphViewState }) {
  const g = model.graph;
  return (
    <div className="graph-status" aria-live="polite">
      <span data-testid="graph-node-count" data-count={g.order}>
        {plural(g.order, 'node')}
      </span>
      <span data-testid="graph-edge-count" data-count={g.size}>
        {plural(g.size, 'edge')}
      </span>
      {view.truncated && (
        <span className="graph-truncated" title="The server stopped at the node limit: raise Max nodes or choose a label" data-testid="graph-truncated">
          truncated at max nodes
        </span>
      )}
      {view.status === 'loading' && g.order > 0 && <span className="muted">Loading…</span>}
      {view.layoutRunning && <span className="muted">laying out…</span>}
    </div>
  );
}

export function GraphEmpty({ model, view, onRetry, onWhole }: { model: GraphModel; view: GraphViewState; onRetry: () => void; onWhole: () => void }) {
  if (model.graph.order > 0) return null;
  if (view.status === 'loading' || view.status === 'idle') {
    return (
      <div className="graph-empty">
        <Spinner label="Loading the graph…" />
        <p className="muted">Loading the graph…</p>
      </div>
    );
  }
  if (view.status === 'error') {
    return (
      <div className="graph-empty" role="alert">
        <h2>The graph could not be loaded</h2>
        <p className="form-error">{view.error}</p>
        <button type="button" className="btn btn-primary" onClick={onRetry}>
          Try again
        </button>
      </div>
    );
  }
  if (view.label === WHOLE_GRAPH || view.label === null) {
    return (
      <div className="graph-empty" data-testid="graph-empty">
        <h2>The knowledge graph is empty</h2>
        <p className="muted">
          Entities and relations appear here once documents are indexed. Upload or insert documents on the Documents page and wait
          until they are processed.
        </p>
        <button type="button" className="btn btn-primary" onClick={() => navigate('documents')}>
          Go to Documents
        </button>
      </div>
    );
  }
  return (
    <div className="graph-empty" data-testid="graph-empty">
      <h2>No entity called “{view.label}”</h2>
      <p className="muted">Pick a name from the suggestions of the label box, or show the whole graph.</p>
      <button type="button" className="btn btn-primary" onClick={onWhole}>
        Show the whole graph
      </button>
    </div>
  );
}

export function HighlightBanner({ model, view }: { model: GraphModel; view: GraphViewState }) {
  const h = view.highlight;
  if (!h) return null;
  const c = highlightCoverage(model.graph, h);
  const missing = c.totalNodes - c.nodes;
  return (
    <div className="graph-banner" role="status" data-testid="graph-highlight">
      <span>
        Highlighting {plural(c.nodes, 'entity', 'entities')}
        {c.totalEdges > 0 && ` and ${plural(c.edges, 'relation')}`} {h.reason}
        {missing > 0 && <span className="muted"> ({missing} not in this graph)</span>}
      </span>
      <button type="button" className="btn btn-small" onClick={() => model.setHighlight(null)}>
        Clear highlight
      </button>
    </div>
  );
}

export function PicksBar({ view, onMerge, onClear, blocked }: { view: GraphViewState; onMerge: () => void; onClear: () => void; blocked: string | null }) {
  if (view.picked.length === 0) return null;
  const names = view.picked.slice(0, 3).join(', ') + (view.picked.length > 3 ? ` +${view.picked.length - 3}` : '');
  return (
    <div className="graph-picks" role="status" data-testid="graph-picks">
      <span>
        Picked: <strong>{names}</strong>
      </span>
      <button type="button" className="btn btn-small btn-primary" onClick={onMerge} disabled={blocked !== null} title={blocked ?? 'Merge the picked entities'} data-testid="graph-picks-merge">
        Merge…
      </button>
      <button type="button" className="btn btn-small" onClick={onClear}>
        Clear
      </button>
    </div>
  );
}
