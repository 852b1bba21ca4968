// "Why this answer": what the retrieval found for an answer (entities, relations, chunks with
// their scores and origins), the keywords it used, and what the query cost. The trace comes with
// the answer (include_trace, ours); the full records come with it or from /query/data.
import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { t } from '../../i18n';
import { describeError } from '../../api/errors';
import type { QueryDataResponse } from '../../api/types';
import { server } from '../../app/services';
import { Spinner } from '../../components/Spinner';
import { showInGraph } from '../../state/navigation';
import type { AssistantMessage } from './model';
import { dataRequest } from './request';
import { explain, graphSelection, hasRecords } from './trace';
import { UsageView } from './UsageView';
import { ChunkList, EntityList, RelationList } from './WhyLists';

type Tab = 'entities' | 'relations' | 'chunks' | 'usage';

/**
 * /query/data per message, kept for the page's life: reopening a panel does not ask again, and
 * two mounts of the same panel share one request.
 */
const recordRequests = new Map<string, Promise<QueryDataResponse>>();

type Records =
  | { state: 'loading' }
  | { state: 'ready'; response: QueryDataResponse | null }
  | { state: 'error'; message: string };

function useRecords(msg: AssistantMessage): [Records, () => void] {
  const needed = msg.request.mode !== 'bypass' && !hasRecords(msg.trace);
  const [records, setRecords] = useState<Records>(() =>
    needed ? { state: 'loading' } : { state: 'ready', response: null },
  );
  const [attempt, setAttempt] = useState(0);
  // a retried answer is a new retrieval
  const key = `${msg.id}@${msg.startedAt}`;
  useEffect(() => {
    if (!needed) return;
    let alive = true;
    let request = recordRequests.get(key);
    if (!request) {
      request = server.queryData(dataRequest(msg.request));
      recordRequests.set(key, request);
      request.catch(() => recordRequests.delete(key));
    }
    setRecords({ state: 'loading' });
    request.then(
      (response) => alive && setRecords({ state: 'ready', response }),
      (e: unknown) => alive && setRecords({ state: 'error', message: describeError(e) }),
    );
    return () => {
      alive = false;
    };
  }, [key, msg.request, needed, attempt]);
  const reload = useCallback(() => {
    recordRequests.delete(key);
    setAttempt((n) => n + 1);
  }, [key]);
  return [records, reload];
}

export function WhyPanel({ msg, prices }: { msg: AssistantMessage; prices: { input: number | null; output: number | null } }) {
  const [records, reload] = useRecords(msg);
  const bypass = msg.request.mode === 'bypass';
  const response = records.state === 'ready' ? records.response : null;
  const trace = msg.trace ?? response?.trace ?? null;
  const e = useMemo(
    () => explain(trace, response?.data ?? null, response?.metadata?.keywords ?? null),
    [trace, response],
  );
  const [tab, setTab] = useState<Tab>(bypass ? 'usage' : 'entities');
  const tabs: { id: Tab; label: string; count?: number }[] = bypass
    ? [{ id: 'usage', label: t('why.usageTab') }]
    : [
        { id: 'entities', label: t('why.entities'), count: e.entities.length },
        { id: 'relations', label: t('why.relations'), count: e.relations.length },
        { id: 'chunks', label: t('why.chunks'), count: e.chunks.length },
        { id: 'usage', label: t('why.usageTab') },
      ];
  const tabRefs = useRef<Record<string, HTMLButtonElement | null>>({});
  // the WAI-ARIA tabs pattern: ←/→ move (wrapping), Home/End go to the first/last tab
  const onTabKey = (ev: KeyboardEvent) => {
    const i = tabs.findIndex((x) => x.id === tab);
    const to: Record<string, number> = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 };
    const target = to[ev.key];
    if (target === undefined) return;
    ev.preventDefault();
    const next = tabs[(target + tabs.length) % tabs.length];
    if (next) {
      setTab(next.id);
      tabRefs.current[next.id]?.focus();
    }
  };
  const selection = graphSelection(e);
  const loading = records.state === 'loading';
  const noData = response && response.status === 'failure' ? response.message : null;
  const total = e.entities.length + e.relations.length + e.chunks.length;

  return (
    <section className="why" aria-label={t('why.label')} data-testid="why-panel">
      <div className="why-head">
        {e.keywords && (e.keywords.high.length > 0 || e.keywords.low.length > 0) ? (
          <dl className="why-keywords" data-testid="why-keywords">
            <dt>{t('why.hl')}</dt>
            <dd>{e.keywords.high.length > 0 ? e.keywords.high.join(', ') : '—'}</dd>
            <dt>{t('why.ll')}</dt>
            <dd>{e.keywords.low.length > 0 ? e.keywords.low.join(', ') : '—'}</dd>
          </dl>
        ) : (
          <p className="muted why-note">
            {bypass
              ? t('why.bypass')
              : loading
                ? '\u00a0'
                : t('why.noKeywords')}
          </p>
        )}
        {!bypass && (
          <button
            type="button"
            className="btn btn-small"
            disabled={selection.entities.length === 0}
            onClick={() =>
              showInGraph({ entities: selection.entities, relations: selection.relations, select: selection.entities[0] })
            }
            data-testid="why-show-in-graph"
          >
            {t('why.showInGraph')}
          </button>
        )}
      </div>
      {!e.traced && !loading && !bypass && (
        <p className="muted why-note" data-testid="why-no-trace">
          {t('why.noTrace')}
        </p>
      )}
      <div className="why-tabs" role="tablist" aria-label={t('why.records')} onKeyDown={onTabKey}>
        {tabs.map((tb) => (
          <button
            key={tb.id}
            ref={(el) => {
              tabRefs.current[tb.id] = el;
            }}
            type="button"
            role="tab"
            id={`why-tab-${msg.id}-${tb.id}`}
            aria-selected={tab === tb.id}
            aria-controls={`why-panel-${msg.id}`}
            tabIndex={tab === tb.id ? 0 : -1}
            className="why-tab"
            onClick={() => setTab(tb.id)}
            data-testid={`why-tab-${tb.id}`}
          >
            {tb.label}
            {tb.count !== undefined && (!loading || total > 0) && <span className="why-count">{tb.count}</span>}
          </button>
        ))}
      </div>
      <div
        className="why-body"
        role="tabpanel"
        id={`why-panel-${msg.id}`}
        aria-labelledby={`why-tab-${msg.id}-${tab}`}
      >
        {tab === 'usage' ? (
          <UsageView trace={trace} prices={prices} />
        ) : (
          <>
            {records.state === 'error' && (
              <div className="form-error why-error" role="alert">
                {t('why.fetchFailed', { error: records.message })}{' '}
                <button type="button" className="btn btn-small" onClick={reload}>
                  {t('common.retry')}
                </button>
              </div>
            )}
            {loading && <Spinner label={t('why.fetching')} />}
            {noData && total === 0 && <p className="muted">{noData}</p>}
            {(!loading || total > 0) && (
              <>
                {tab === 'entities' && <EntityList rows={e.entities} />}
                {tab === 'relations' && <RelationList rows={e.relations} />}
                {tab === 'chunks' && <ChunkList rows={e.chunks} />}
              </>
            )}
          </>
        )}
      </div>
    </section>
  );
}
