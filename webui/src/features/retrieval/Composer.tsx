// Where questions are typed: Enter sends, Shift+Enter breaks the line, `/mode ` picks the mode
// of one question, Esc stops an arriving answer; the mode picker, Send, and Stop.
import { useLayoutEffect, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { QUERY_MODES, type QueryMode } from '../../api/types';
import { MODE_HELP, MODE_LABELS } from './settings';

const MAX_HEIGHT = 200;

export function Composer({
  value,
  onChange,
  onSend,
  onStop,
  busy,
  error,
  mode,
  onMode,
  inputRef,
}: {
  value: string;
  onChange: (v: string) => void;
  onSend: () => void;
  onStop: () => void;
  busy: boolean;
  error: string | null;
  mode: QueryMode;
  onMode: (m: QueryMode) => void;
  inputRef: RefObject<HTMLTextAreaElement | null>;
}) {
  const { t } = useTranslation();
  // Grows with its text up to MAX_HEIGHT, then scrolls.
  useLayoutEffect(() => {
    const el = inputRef.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight + 2, MAX_HEIGHT)}px`;
  }, [value, inputRef]);

  return (
    <form
      className="chat-composer"
      onSubmit={(e) => {
        e.preventDefault();
        if (!busy) onSend();
      }}
    >
      <label className="visually-hidden" htmlFor="chat-input">
        {t('retrieval.composer.question')}
      </label>
      <textarea
        id="chat-input"
        ref={inputRef}
        className="chat-input"
        rows={1}
        value={value}
        placeholder={t('retrieval.composer.placeholder')}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? 'chat-input-error' : 'chat-input-hint'}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            if (!busy) onSend();
          } else if (e.key === 'Escape' && busy) {
            e.preventDefault();
            onStop();
          }
        }}
        data-testid="chat-input"
      />
      <div className="chat-composer-bar">
        <label className="chat-mode-quick">
          <span className="visually-hidden">{t('retrieval.composer.mode')}</span>
          <select
            value={mode}
            onChange={(e) => onMode(e.target.value as QueryMode)}
            title={MODE_HELP[mode]}
            data-testid="retrieval-mode-quick"
          >
            {QUERY_MODES.map((m) => (
              <option key={m} value={m}>
                {MODE_LABELS[m]}
              </option>
            ))}
          </select>
        </label>
        <span id="chat-input-hint" className="chat-hint muted">
          {busy ? t('retrieval.composer.hintBusy') : t('retrieval.composer.hint')}
        </span>
        {busy ? (
          <button type="button" className="btn btn-danger" onClick={onStop} data-testid="chat-stop">
            {t('retrieval.composer.stop')}
          </button>
        ) : (
          <button type="submit" className="btn btn-primary" disabled={value.trim() === ''} data-testid="chat-send">
            {t('retrieval.composer.send')}
          </button>
        )}
      </div>
      {error && (
        <p id="chat-input-error" className="form-error chat-input-error" role="alert" data-testid="chat-input-error">
          {error}
        </p>
      )}
    </form>
  );
}
