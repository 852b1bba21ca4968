// The top bar: title, page tabs, workspace, server status, theme, user.
import { useState } from 'react';
import { runtimeConfig } from '../config';
import { useStore } from '../lib/store';
import { health } from '../state/health';
import { type Page, route } from '../state/navigation';
import { setTheme, theme, type ThemeChoice } from '../state/theme';
import { session } from './services';
import { StatusDialog } from './StatusDialog';
import { WorkspacePicker } from './WorkspacePicker';

const TABS: { page: Page; label: string; short: string }[] = [
  { page: 'documents', label: 'Documents', short: 'Docs' },
  { page: 'graph', label: 'Knowledge Graph', short: 'Graph' },
  { page: 'retrieval', label: 'Retrieval', short: 'Ask' },
  { page: 'api', label: 'API', short: 'API' },
];

const NEXT_THEME: Record<ThemeChoice, ThemeChoice> = { system: 'light', light: 'dark', dark: 'system' };
const THEME_ICON: Record<ThemeChoice, string> = { system: '◐', light: '☀', dark: '☾' };

export function Header() {
  const current = useStore(route, (r) => r.page);
  const s = useStore(session.store);
  const h = useStore(health);
  const choice = useStore(theme);
  const [statusOpen, setStatusOpen] = useState(false);
  const healthy = h.health && !h.error;
  const busy = Boolean(h.health?.pipeline_busy);
  const statusText = !h.checkedAt ? 'Checking…' : !healthy ? 'Server unreachable' : busy ? 'Indexing' : 'Connected';
  return (
    <header className="site-header">
      <div className="brand">
        <img src="./favicon.svg" alt="" width={24} height={24} />
        <span className="brand-title" title={s.description ?? runtimeConfig.description}>
          {s.title ?? runtimeConfig.title}
        </span>
      </div>
      <nav className="tabs" aria-label="Pages">
        {TABS.map((t) => (
          <a
            key={t.page}
            href={`#/${t.page}`}
            className="tab"
            aria-current={current === t.page ? 'page' : undefined}
            data-testid={`tab-${t.page}`}
          >
            <span className="tab-long">{t.label}</span>
            <span className="tab-short">{t.short}</span>
          </a>
        ))}
      </nav>
      <div className="header-actions">
        <WorkspacePicker />
        <button
          type="button"
          className="status-button"
          onClick={() => setStatusOpen(true)}
          title="Server status"
          data-testid="status-button"
        >
          <span className={`status-dot ${!h.checkedAt ? 'unknown' : !healthy ? 'down' : busy ? 'busy' : 'up'}`} />
          <span className="status-text">{statusText}</span>
        </button>
        <button
          type="button"
          className="icon-button"
          onClick={() => setTheme(NEXT_THEME[choice])}
          title={`Theme: ${choice} (click for ${NEXT_THEME[choice]})`}
          aria-label={`Theme: ${choice}. Switch to ${NEXT_THEME[choice]}`}
          data-testid="theme-toggle"
        >
          {THEME_ICON[choice]}
        </button>
        {(s.authConfigured || s.apiKey) && (
          <button
            type="button"
            className="btn btn-small"
            onClick={() => void session.logout()}
            title={s.user ? `Logged in as ${s.user}` : 'Forget the credentials'}
            data-testid="logout"
          >
            {s.authConfigured && s.user ? `Log out ${s.user}` : 'Log out'}
          </button>
        )}
      </div>
      <StatusDialog open={statusOpen} onClose={() => setStatusOpen(false)} />
    </header>
  );
}
