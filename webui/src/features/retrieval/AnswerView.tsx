// One answer: its reasoning (collapsed), the Markdown text (or the raw context/prompt), its
// status (retrieving, streaming, stopped, failed + retry), actions (copy, why), references.
import { useMemo, useState } from 'react';
import { describeError } from '../../api/errors';
import { Spinner } from '../../components/Spinner';
import { notify } from '../../state/notices';
import { copyText } from './clipboard';
import { formatCount } from '../../lib/text';
import { formatCost, formatMs, usageRows, type Prices } from './cost';
import { Markdown } from './Markdown';
import type { AssistantMessage } from './model';
import { References } from './References';
import { MODE_LABELS } from './settings';
import { splitThink } from './think';
import { WhyPanel } from './WhyPanel';

const KIND_LABELS = { answer: null, context: 'Context only', prompt: 'Prompt only' } as const;

function Summary({ msg, prices }: { msg: AssistantMessage; prices: Prices }) {
  const parts: string[] = [];
  if (msg.trace) {
    const { total } = usageRows(msg.trace.usage, prices);
    parts.push(`${formatCount(total.tokensIn + total.tokensOut)} tokens`);
    if (total.cost !== null) parts.push(formatCost(total.cost));
  }
  const ms = msg.trace?.timings_ms?.total ?? (msg.finishedAt ? msg.finishedAt - msg.startedAt : null);
  if (ms !== null && ms !== undefined) parts.push(formatMs(ms));
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
  const live = msg.status === 'pending' || msg.status === 'streaming';
  const split = useMemo(() => splitThink(msg.text, live), [msg.text, live]);
  const [whyOpen, setWhyOpen] = useState(false);
  const answer = msg.kind === 'answer' ? split.answer : msg.text;
  const kindLabel = KIND_LABELS[msg.kind];

  const copy = async () => {
    try {
      await copyText(answer.trim());
      notify('success', 'Answer copied.');
    } catch (e) {
      notify('error', `Cannot copy: ${describeError(e)}`);
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
        {msg.status === 'pending' && <Spinner label="Retrieving…" />}
        {msg.status === 'pending' && <span className="muted" aria-hidden="true">Retrieving…</span>}
        {msg.status === 'streaming' && <span className="chat-live muted">Answering…</span>}
        {msg.status === 'stopped' && <span className="badge chat-stopped">Stopped</span>}
      </header>

      {msg.kind === 'answer' && split.reasoning !== null && (
        <details className="chat-think" data-testid="answer-reasoning">
          <summary>{split.thinking ? 'Reasoning…' : 'Reasoning'}</summary>
          <div className="chat-think-text">{split.reasoning}</div>
        </details>
      )}

      {answer.trim() !== '' && (
        <div className="chat-answer-body" data-testid="answer-text">
          {msg.kind === 'answer' ? <Markdown text={answer} /> : <pre className="chat-pre">{answer}</pre>}
          {msg.status === 'streaming' && <span className="chat-caret" aria-hidden="true" />}
        </div>
      )}
      {msg.status === 'stopped' && answer.trim() === '' && (
        <p className="muted">Stopped before the answer started.</p>
      )}

      {msg.status === 'error' && (
        <div className="form-error chat-error" role="alert" data-testid="answer-error">
          <span>{msg.error || 'The query failed.'}</span>
          <button type="button" className="btn btn-small" onClick={onRetry} disabled={!canRetry}>
            Retry
          </button>
        </div>
      )}

      {msg.references && <References references={msg.references} />}

      {!live && !(msg.status === 'error' && answer.trim() === '') && (
        <div className="chat-actions">
          {answer.trim() !== '' && (
            <button type="button" className="btn btn-small" onClick={() => void copy()} data-testid="answer-copy">
              Copy
            </button>
          )}
          {msg.status === 'stopped' && (
            <button type="button" className="btn btn-small" onClick={onRetry} disabled={!canRetry}>
              Ask again
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
              {whyOpen ? 'Hide why' : 'Why this answer'}
            </button>
          )}
          <Summary msg={msg} prices={prices} />
        </div>
      )}

      {whyOpen && !live && <WhyPanel msg={msg} prices={prices} />}
    </article>
  );
}
