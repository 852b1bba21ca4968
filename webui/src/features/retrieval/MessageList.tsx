// The conversation, scrolled to the newest message while it grows — unless the user scrolled up
// to read something.
import { useLayoutEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { Prices } from './cost';
import { AnswerView } from './AnswerView';
import type { Message, UserMessage } from './model';
import { MODE_LABELS } from './settings';

function Question({ msg }: { msg: UserMessage }) {
  const { t } = useTranslation();
  return (
    <div className="chat-question" data-testid="question">
      <div className="chat-question-bubble" dir="auto">
        <span className="visually-hidden">{t('retrieval.youAsked', { mode: MODE_LABELS[msg.mode] })}</span>
        {msg.text}
      </div>
    </div>
  );
}

export function MessageList({
  messages,
  busy,
  prices,
  onRetry,
}: {
  messages: Message[];
  busy: boolean;
  prices: Prices;
  onRetry: (id: string) => void;
}) {
  const { t } = useTranslation();
  const scroller = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const count = messages.length;

  // A new question always scrolls down.
  useLayoutEffect(() => {
    stick.current = true;
  }, [count]);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [messages]);

  return (
    <div
      ref={scroller}
      className="chat-scroll"
      onScroll={(e) => {
        const el = e.currentTarget;
        stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 60;
      }}
      data-testid="chat-messages"
    >
      <div className="chat-log" role="log" aria-label={t('retrieval.conversation')} aria-live="off">
        {messages.map((m) =>
          m.role === 'user' ? (
            <Question key={m.id} msg={m} />
          ) : (
            <AnswerView key={m.id} msg={m} prices={prices} canRetry={!busy} onRetry={() => onRetry(m.id)} />
          ),
        )}
      </div>
    </div>
  );
}
