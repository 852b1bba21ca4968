// The live pipeline panel above the table: state, job, batch progress, latest message, and the
// history as a log that follows new lines unless the user scrolled up. Collapsible; cancel asks first.
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { PipelineStatus } from '../../api/types';
import { formatCount } from '../../lib/text';
import { formatDateTimeLong } from './format';
import { isAtEnd, lineKind, pipelineView } from './pipelineView';

interface Props {
  status: PipelineStatus | null;
  error: string | null;
  expanded: boolean;
  onToggle: () => void;
  onCancel: () => void;
  cancelling: boolean;
}

export function PipelinePanel({ status, error, expanded, onToggle, onCancel, cancelling }: Props) {
  const { t } = useTranslation();
  const [now, setNow] = useState(() => Date.now());
  const v = pipelineView(status, now);
  useEffect(() => {
    if (!v.working) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [v.working]);
  const canCancel = Boolean(status?.busy) && !status?.cancellation_requested;
  return (
    <section
      className={`docs-pipeline docs-pipeline-${v.state}`}
      aria-label={t('docs.pipeline.label')}
      data-testid="docs-pipeline"
      data-busy={v.working ? 'true' : 'false'}
    >
      {/* screen readers hear the state change (idle → processing → idle) and each new batch */}
      <span className="visually-hidden" role="status" data-testid="docs-pipeline-announce">
        {!v.working
          ? t('docs.pipeline.announce', { state: v.stateLabel })
          : v.batches > 0
            ? t('docs.pipeline.announceBatch', { state: v.stateLabel, job: v.jobName, current: v.curBatch, total: v.batches })
            : t('docs.pipeline.announceJob', { state: v.stateLabel, job: v.jobName })}
      </span>
      <div className="docs-pipeline-bar">
        <button
          type="button"
          className="docs-pipeline-toggle"
          aria-expanded={expanded}
          aria-controls="docs-pipeline-body"
          onClick={onToggle}
          data-testid="docs-pipeline-toggle"
        >
          <span className="docs-pipeline-chevron" aria-hidden="true">
            {expanded ? '▾' : '▸'}
          </span>
          <span className={`docs-pipeline-dot docs-pipeline-dot-${v.state}`} aria-hidden="true" />
          <strong>{t('docs.pipeline.title')}</strong>
          <span className="docs-pipeline-state" data-testid="docs-pipeline-state">
            {v.stateLabel}
          </span>
          {v.working && <span className="docs-pipeline-job">· {v.jobName}</span>}
        </button>
        {v.working && v.batchPercent !== null && (
          <Progress value={v.batchPercent} label={t('docs.pipeline.batchOf', { current: v.curBatch, total: v.batches })} compact />
        )}
        {!expanded && v.latest && (
          <span className="docs-pipeline-latest muted" title={v.latest}>
            {v.latest}
          </span>
        )}
        {canCancel && (
          <button
            type="button"
            className="btn btn-small docs-pipeline-cancel"
            onClick={onCancel}
            disabled={cancelling}
            data-testid="docs-pipeline-cancel"
          >
            {cancelling ? t('docs.pipeline.cancelling') : t('docs.pipeline.cancelJob')}
          </button>
        )}
      </div>
      {expanded && (
        <div className="docs-pipeline-body" id="docs-pipeline-body">
          {error && (
            <p className="form-error docs-pipeline-error" role="alert">
              {t('docs.pipeline.unavailable', { error })}
            </p>
          )}
          <dl className="kv docs-pipeline-facts">
            <dt>{t('docs.pipeline.job')}</dt>
            <dd>{v.jobName}</dd>
            <dt>{t('docs.pipeline.started')}</dt>
            <dd>
              {formatDateTimeLong(v.jobStart)}
              {v.elapsed && <span className="muted"> {t('docs.pipeline.ago', { elapsed: v.elapsed })}</span>}
            </dd>
            <dt>{t('docs.pipeline.documents')}</dt>
            <dd>{formatCount(v.docs)}</dd>
            <dt>{t('docs.pipeline.batches')}</dt>
            <dd>
              {v.batches > 0 ? (
                <Progress value={v.batchPercent ?? 0} label={t('docs.pipeline.of', { current: formatCount(v.curBatch), total: formatCount(v.batches) })} />
              ) : (
                '—'
              )}
            </dd>
            {v.requestPending && (
              <>
                <dt>{t('docs.pipeline.queued')}</dt>
                <dd>{t('docs.pipeline.queuedText')}</dd>
              </>
            )}
            <dt>{t('docs.pipeline.latest')}</dt>
            <dd className="docs-pipeline-latest-full" data-testid="docs-pipeline-latest" title={v.latest} dir="auto">
              {v.latest || '—'}
            </dd>
          </dl>
          <PipelineLog lines={v.history} truncated={v.truncated} />
        </div>
      )}
    </section>
  );
}

function Progress({ value, label, compact }: { value: number; label: string; compact?: boolean }) {
  return (
    <span className={compact ? 'docs-progress docs-progress-compact' : 'docs-progress'}>
      <span
        className="docs-progress-track"
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={value}
        aria-label={label}
      >
        <span className="docs-progress-fill" style={{ width: `${value}%` }} />
      </span>
      <span className="docs-progress-label">{label}</span>
    </span>
  );
}

function PipelineLog({ lines, truncated }: { lines: string[]; truncated: number }) {
  const { t } = useTranslation();
  const box = useRef<HTMLDivElement>(null);
  const [follow, setFollow] = useState(true);
  const last = lines.length > 0 ? `${lines.length}:${lines[lines.length - 1]}` : '';
  useLayoutEffect(() => {
    const el = box.current;
    if (el && follow) el.scrollTop = el.scrollHeight;
  }, [last, follow]);
  return (
    <div className="docs-log-wrap">
      <div
        ref={box}
        className="docs-log"
        role="log"
        aria-label={t('docs.pipeline.messages')}
        tabIndex={0}
        data-testid="docs-pipeline-log"
        onScroll={(e) => {
          const el = e.currentTarget;
          setFollow(isAtEnd(el.scrollTop, el.clientHeight, el.scrollHeight));
        }}
      >
        {truncated > 0 && <div className="docs-log-line muted">{t('docs.pipeline.earlier', { count: truncated })}</div>}
        {lines.length === 0 ? (
          <div className="docs-log-line muted">{t('docs.pipeline.noMessages')}</div>
        ) : (
          lines.map((line, i) => (
            <div key={i} className={`docs-log-line docs-log-${lineKind(line)}`} dir="auto">
              {line}
            </div>
          ))
        )}
      </div>
      {!follow && (
        <button type="button" className="btn btn-small docs-log-jump" onClick={() => setFollow(true)}>
          {t('docs.pipeline.jumpLatest')}
        </button>
      )}
    </div>
  );
}
