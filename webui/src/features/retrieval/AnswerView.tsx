// One answer: its reasoning (collapsed), the Markdown text (or the raw context/prompt), its
// status (retrieving, streaming, stopped, failed + retry), actions (copy, why), references.
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { describeError } from '../../api/errors';
import { Spinner } from '../../components/Spinner';
import { notify } from '../../state/notices';
import { copyText } from './clipboard';
import { formatCost, formatMs, usageRows, type Prices } from './cost';
import { Markdown } from './Markdown';
import type { AssistantMessage } from './model';
import { References } from './References';
import { MODE_LABELS } from './settings';
import { splitThink } from './think';
import { WhyPanel } from './WhyPanel';


function Summary({ msg, prices }: { msg: AssistantMessage; prices: Prices }) {
  const { t } = useTranslation();
  const parts: string[] = [];
  if (msg.trace) {
    const { total } = usageRows(msg.trace.usage, prices);
    parts.push(t('retrieval.answer.tokens', { count: total.tokensIn + total.tokensOut }));
    if (total.cost !== null) parts.push(formatCost(total.cost));
  }
  // time to first token (streamed answers) and total time, as the browser measured them
  if (msg.firstTokenAt !== undefined) parts.push(t('retrieval.answer.firstToken', { time: formatMs(msg.firstTokenAt - msg.startedAt) }));
  const ms = msg.trace?.timings_ms?.total ?? (msg.finishedAt ? msg.finishedAt - msg.startedAt : null);
  if (ms !== null && ms !== undefined) parts.push(t('retrieval.answer.total', { time: formatMs(ms) }));
  if (parts.length === 0) return null;
  return <span className="chat-summary muted">{parts.join(' · ')}</span>;
}

export function AnswerView({
  msg,
  prices,
  canRetry,
  onRetry,
}: {
  msg: AssistantMessage;
  prices: Prices;
  canRetry: boolean;
  onRetry: () => void;
}) {
  const { t } = useTranslation();
  const live = msg.status === 'pending' || msg.status === 'streaming';
  const split = useMemo(() => splitThink(msg.text, live), [msg.text, live]);
  const [whyOpen, setWhyOpen] = useState(false);
  const answer = msg.kind === 'answer' ? split.answer : msg.text;
  const kindLabel = msg.kind === 'context' ? t('retrieval.answer.contextOnly') : msg.kind === 'prompt' ? t('retrieval.answer.promptOnly') : null;

  const copy = async () => {
    try {
      await copyText(answer.trim());
      notify('success', t('retrieval.answer.copied'));
    } catch (e) {
      notify('error', t('retrieval.answer.copyFailed', { error: describeError(e) }));
    }
  };

  return (
    <article
      className={`chat-answer chat-answer-${msg.status}`}
      data-testid="answer"
      data-status={msg.status}
      aria-busy={live}
    >
      <header className="chat-answer-head">
        <span className="badge chat-mode">{MODE_LABELS[msg.request.mode ?? 'auto']}</span>
        {kindLabel && <span className="badge">{kindLabel}</span>}
        {msg.status === 'pending' && <Spinner label={t('retrieval.answer.retrieving')} />}
        {msg.status === 'pending' && <span className="muted" aria-hidden="true">{t('retrieval.answer.retrieving')}</span>}
        {msg.status === 'streaming' && <span className="chat-live muted">{t('retrieval.answer.answering')}</span>}
        {msg.status === 'stopped' && <span className="badge chat-stopped">{t('retrieval.answer.stopped')}</span>}
      </header>

      {msg.kind === 'answer' && split.reasoning !== null && (
        <details className="chat-think" data-testid="answer-reasoning">
          <summary>{split.thinking ? t('retrieval.answer.reasoningLive') : t('retrieval.answer.reasoning')}</summary>
          <div className="chat-think-text">{split.reasoning}</div>
        </details>
      )}

      {answer.trim() !== '' && (
        <div className="chat-answer-body" data-testid="answer-text">
          {msg.kind === 'answer' ? <Markdown text={answer} live={live} /> : <pre className="chat-pre">{answer}</pre>}
          {msg.status === 'streaming' && <span className="chat-caret" aria-hidden="true" />}
        </div>
      )}
      {msg.status === 'stopped' && answer.trim() === '' && (
        <p className="muted">{t('retrieval.answer.stoppedEarly')}</p>
      )}

      {msg.status === 'error' && (
        <div className="form-error chat-error" role="alert" data-testid="answer-error">
          <span>{msg.error || t('retrieval.answer.failed')}</span>
          <button type="button" className="btn btn-small" onClick={onRetry} disabled={!canRetry}>
            {t('retrieval.answer.retry')}
          </button>
        </div>
      )}

      {msg.references && <References references={msg.references} />}

      {!live && !(msg.status === 'error' && answer.trim() === '') && (
        <div className="chat-actions">
          {answer.trim() !== '' && (
            <button type="button" className="btn btn-small" onClick={() => void copy()} data-testid="answer-copy">
              {t('retrieval.answer.copy')}
            </button>
          )}
          {msg.status === 'stopped' && (
            <button type="button" className="btn btn-small" onClick={onRetry} disabled={!canRetry}>
              {t('retrieval.answer.askAgain')}
            </button>
          )}
          {msg.status !== 'error' && (
            <button
              type="button"
              className="btn btn-small"
              aria-expanded={whyOpen}
              onClick={() => setWhyOpen((o) => !o)}
              data-testid="answer-why"
            >
              {whyOpen ? t('retrieval.answer.hideWhy') : t('retrieval.answer.why')}
            </button>
          )}
          <Summary msg={msg} prices={prices} />
        </div>
      )}

      {whyOpen && !live && <WhyPanel msg={msg} prices={prices} />}
    </article>
  );
}
