// What is drawn over the graph: counts and truncation, loading / empty / error states, the
// highlight from the retrieval page, and the entities picked for a merge.
import { Spinner } from '../../components/Spinner';
import { t } from '../../i18n';
import { navigate } from '../../state/navigation';
import { highlightCoverage } from './focus';
import type { GraphModel, GraphViewState } from './model';
import { WHOLE_GRAPH } from './suggest';

export function GraphStatus({ model, view }: { model: GraphModel; view: GraphViewState }) {
  const g = model.graph;
  return (
    <div className="graph-status" aria-live="polite">
      <span data-testid="graph-node-count" data-count={g.order}>
        {t('graph.nodes', { count: g.order })}
      </span>
      <span data-testid="graph-edge-count" data-count={g.size}>
        {t('graph.edges', { count: g.size })}
      </span>
      {view.truncated && (
        <span className="graph-truncated" title={t('graph.truncatedTitle')} data-testid="graph-truncated">
          {t('graph.truncated')}
        </span>
      )}
      {view.status === 'loading' && g.order > 0 && <span className="muted">{t('graph.loadingShort')}</span>}
      {view.layoutRunning && <span className="muted">{t('graph.layingOut')}</span>}
    </div>
  );
}

export function GraphEmpty({ model, view, onRetry, onWhole }: { model: GraphModel; view: GraphViewState; onRetry: () => void; onWhole: () => void }) {
  if (model.graph.order > 0) return null;
  if (view.status === 'loading' || view.status === 'idle') {
    return (
      <div className="graph-empty">
        <Spinner label={t('graph.loading')} />
        <p className="muted">{t('graph.loading')}</p>
      </div>
    );
  }
  if (view.status === 'error') {
    return (
      <div className="graph-empty" role="alert">
        <h2>{t('graph.loadFailed')}</h2>
        <p className="form-error">{view.error}</p>
        <button type="button" className="btn btn-primary" onClick={onRetry}>
          {t('graph.tryAgain')}
        </button>
      </div>
    );
  }
  if (view.label === WHOLE_GRAPH || view.label === null) {
    return (
      <div className="graph-empty" data-testid="graph-empty">
        <h2>{t('graph.empty')}</h2>
        <p className="muted">{t('graph.emptyBody')}</p>
        <button type="button" className="btn btn-primary" onClick={() => navigate('documents')}>
          {t('graph.goDocuments')}
        </button>
      </div>
    );
  }
  return (
    <div className="graph-empty" data-testid="graph-empty">
      <h2>{t('graph.noEntity', { label: view.label })}</h2>
      <p className="muted">{t('graph.noEntityBody')}</p>
      <button type="button" className="btn btn-primary" onClick={onWhole}>
        {t('graph.showWhole')}
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
        {t('graph.highlight', { count: c.nodes })}
        {c.totalEdges > 0 && ` ${t('graph.highlightRelations', { count: c.edges })}`} {h.reason}
        {missing > 0 && <span className="muted"> {t('graph.notInGraph', { count: missing })}</span>}
      </span>
      <button type="button" className="btn btn-small" onClick={() => model.setHighlight(null)}>
        {t('graph.clearHighlight')}
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
        {t('graph.picked')} <strong>{names}</strong>
      </span>
      <button type="button" className="btn btn-small btn-primary" onClick={onMerge} disabled={blocked !== null} title={blocked ?? t('graph.mergePicked')} data-testid="graph-picks-merge">
        {t('graph.mergeEllipsis')}
      </button>
      <button type="button" className="btn btn-small" onClick={onClear}>
        {t('graph.clear')}
      </button>
    </div>
  );
}
