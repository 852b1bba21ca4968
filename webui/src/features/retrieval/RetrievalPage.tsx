// The retrieval page: the conversation with the knowledge base, and the query settings beside it
// (a side panel on wide screens, a drawer on narrow ones).
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { session } from '../../app/services';
import { Confirm } from '../../components/Confirm';
import { useStore } from '../../lib/store';
import { local } from '../../lib/storage';
import { Composer } from './Composer';
import { EmptyState } from './EmptyState';
import { MessageList } from './MessageList';
import { parsePrice } from './settings';
import { SettingsPanel } from './SettingsPanel';
import { useConversation } from './useConversation';
import { useMediaQuery } from './useMediaQuery';
import { useSettings } from './useSettings';
import './retrieval.css';
import './chat-markdown.css';
import './chat-composer.css';
import './chat-settings.css';
import './why-panel.css';
import './retrieval-narrow.css';

const PANEL_KEY = 'lightrag-rs.retrieval.panel';

/** Keeps Tab inside the drawer while it is open over the page. */
function trapFocus(e: KeyboardEvent<HTMLElement>) {
  const items = [
    ...e.currentTarget.querySelectorAll<HTMLElement>('button, input, select, textarea, summary, [tabindex]'),
  ].filter((el) => !el.hasAttribute('disabled') && el.tabIndex >= 0 && el.offsetParent !== null);
  const first = items[0];
  const last = items[items.length - 1];
  if (!first || !last) return;
  if (e.shiftKey && document.activeElement === first) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault();
    first.focus();
  }
}

export function RetrievalPage({ active }: { active: boolean }) {
  const { t } = useTranslation();
  const workspace = useStore(session.store, (s) => s.workspace);
  const user = useStore(session.store, (s) => (s.authConfigured ? s.user : null));
  const chat = useConversation(workspace, user);
  const { settings, update, reset } = useSettings();
  const narrow = useMediaQuery('(max-width: 900px)');
  const [panelWide, setPanelWide] = useState(() => local.getItem(PANEL_KEY) !== 'closed');
  const [drawer, setDrawer] = useState(false);
  const panelOpen = narrow ? drawer : panelWide;
  const [draft, setDraft] = useState('');
  const [inputError, setInputError] = useState<string | null>(null);
  const [confirmClear, setConfirmClear] = useState(false);
  const input = useRef<HTMLTextAreaElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);
  const questions = chat.messages.filter((m) => m.role === 'user').length;
  const lastAnswer = chat.messages.at(-1);
  const announcement =
    lastAnswer?.role !== 'assistant'
      ? ''
      : lastAnswer.status === 'done'
        ? t('retrieval.page.complete')
        : lastAnswer.status === 'stopped'
          ? t('retrieval.page.stopped')
          : lastAnswer.status === 'error'
            ? t('retrieval.page.failed', { error: lastAnswer.error ?? '' })
            : t('retrieval.page.answering');
  const prices = { input: parsePrice(settings.priceIn), output: parsePrice(settings.priceOut) };

  // Coming to the page with a mouse and keyboard: ready to type.
  useEffect(() => {
    if (active && window.matchMedia?.('(pointer: fine)').matches) input.current?.focus();
  }, [active]);

  // The drawer takes the focus, and gives it back.
  useEffect(() => {
    if (narrow && drawer) closeButton.current?.focus();
  }, [narrow, drawer]);

  const setPanel = (open: boolean) => {
    if (narrow) {
      setDrawer(open);
      if (!open) toggle.current?.focus();
    } else {
      setPanelWide(open);
      local.setItem(PANEL_KEY, open ? 'open' : 'closed');
    }
  };

  const send = () => {
    const error = chat.send(draft, settings);
    setInputError(error);
    if (!error) setDraft('');
  };

  return (
    <div className={`chat-page${panelOpen ? ' chat-page-panel' : ''}`} data-testid="retrieval-page">
      <div className="chat-main">
        <div className="chat-toolbar">
          <h1 className="chat-title">{t('retrieval.page.title')}</h1>
          <span className="muted chat-count">
            {questions > 0 && t('retrieval.page.questions', { count: questions })}
          </span>
          <button
            type="button"
            className="btn btn-small btn-danger-outline"
            onClick={() => setConfirmClear(true)}
            disabled={chat.messages.length === 0}
            data-testid="chat-clear"
          >
            {t('retrieval.page.clear')}
          </button>
          <button
            ref={toggle}
            type="button"
            className="btn btn-small"
            aria-expanded={panelOpen}
            aria-controls="chat-settings"
            onClick={() => setPanel(!panelOpen)}
            data-testid="chat-settings-toggle"
          >
            {t('retrieval.page.settings')}
          </button>
        </div>
        {chat.messages.length === 0 ? (
          <div className="chat-scroll">
            <EmptyState
              onPick={(q) => {
                setDraft(q);
                setInputError(null);
                input.current?.focus();
              }}
            />
          </div>
        ) : (
          <MessageList messages={chat.messages} busy={chat.busy} prices={prices} onRetry={chat.retry} />
        )}
        <p className="visually-hidden" aria-live="polite">
          {announcement}
        </p>
        <Composer
          value={draft}
          onChange={(v) => {
            setDraft(v);
            if (inputError) setInputError(null);
          }}
          onSend={send}
          onStop={chat.stop}
          busy={chat.busy}
          error={inputError}
          mode={settings.mode}
          onMode={(mode) => update({ mode })}
          inputRef={input}
        />
      </div>

      {narrow && drawer && <div className="chat-backdrop" onClick={() => setPanel(false)} aria-hidden="true" />}
      <aside
        id="chat-settings"
        className={`chat-settings${narrow ? ' chat-settings-drawer' : ''}`}
        aria-label={t('retrieval.page.settingsLabel')}
        hidden={!panelOpen}
        role={narrow ? 'dialog' : undefined}
        aria-modal={narrow ? true : undefined}
        onKeyDown={(e) => {
          if (!narrow) return;
          if (e.key === 'Escape') {
            e.stopPropagation();
            setPanel(false);
          } else if (e.key === 'Tab') {
            trapFocus(e);
          }
        }}
        data-testid="chat-settings"
      >
        <header className="chat-settings-head">
          <h2>{t('retrieval.page.settingsLabel')}</h2>
          <button
            ref={closeButton}
            type="button"
            className="icon-button"
            aria-label={t('retrieval.page.closeSettings')}
            onClick={() => setPanel(false)}
          >
            ×
          </button>
        </header>
        <div className="chat-settings-body">
          <SettingsPanel settings={settings} update={update} />
        </div>
        <footer className="chat-settings-foot">
          <button type="button" className="btn btn-small" onClick={reset} data-testid="qs-reset">
            {t('retrieval.page.reset')}
          </button>
        </footer>
      </aside>

      <Confirm
        open={confirmClear}
        title={t('retrieval.page.clearTitle')}
        confirmLabel={t('retrieval.page.clear')}
        danger
        onClose={() => setConfirmClear(false)}
        onConfirm={() => {
          chat.clear();
          setConfirmClear(false);
        }}
      >
        <p>{t('retrieval.page.clearBody', { count: chat.messages.length })}</p>
      </Confirm>
    </div>
  );
}
