// The top bar: title, page tabs, workspace, server status, theme, user.
import { useCallback, useEffect, useMemo, useState } from 'react';
import { describeError } from '../api/errors';
import { createMembersModel } from '../features/members/members';
import { MembersDialog } from '../features/members/MembersDialog';
import { useTranslation } from 'react-i18next';
import { runtimeConfig } from '../config';
import { t } from '../i18n';
import { useStore } from '../lib/store';
import { health } from '../state/health';
import { type Page, route } from '../state/navigation';
import { setTheme, theme, type ThemeChoice } from '../state/theme';
import { server, session } from './services';
import { LanguagePicker } from './LanguagePicker';
import { StatusDialog } from './StatusDialog';
import { WorkspacePicker } from './WorkspacePicker';

function tabs(): { page: Page; label: string; short: string }[] {
  return [
    { page: 'documents', label: t('header.tabDocuments'), short: t('header.tabDocumentsShort') },
    { page: 'graph', label: t('header.tabGraph'), short: t('header.tabGraphShort') },
    { page: 'retrieval', label: t('header.tabRetrieval'), short: t('header.tabRetrievalShort') },
    { page: 'api', label: t('header.tabApi'), short: t('header.tabApi') },
  ];
}

function themeName(choice: ThemeChoice): string {
  return choice === 'system' ? t('header.themeSystem') : choice === 'light' ? t('header.themeLight') : t('header.themeDark');
}

const NEXT_THEME: Record<ThemeChoice, ThemeChoice> = { system: 'light', light: 'dark', dark: 'system' };
const THEME_ICON: Record<ThemeChoice, string> = { system: '◐', light: '☀', dark: '☾' };

export function Header() {
  useTranslation();
  const current = useStore(route, (r) => r.page);
  const s = useStore(session.store);
  const h = useStore(health);
  const choice = useStore(theme);
  const [statusOpen, setStatusOpen] = useState(false);
  const [membersOpen, setMembersOpen] = useState(false);
  // the members page of the current workspace, offered to owners only: GET /admin/grants answers
  // them and refuses (403) everyone else
  const members = useMemo(() => createMembersModel(server, s.workspace, describeError), [s.workspace, s.apiKey, s.user]);
  const access = useStore(members.store, (m) => m.access);
  useEffect(() => {
    void members.probe();
  }, [members]);
  const closeMembers = useCallback(() => setMembersOpen(false), []);
  const healthy = h.health && !h.error;
  const busy = Boolean(h.health?.pipeline_busy);
  const statusText = !h.checkedAt
    ? t('header.checking')
    : !healthy
      ? t('header.unreachable')
      : busy
        ? t('header.indexing')
        : t('header.connected');
  const themeNames = { current: themeName(choice), next: themeName(NEXT_THEME[choice]) };
  return (
    <header className="site-header">
      <div className="brand">
        <img src="./favicon.svg" alt="" width={24} height={24} />
        <span className="brand-title" title={s.description ?? runtimeConfig.description}>
          {s.title ?? runtimeConfig.title}
        </span>
      </div>
      <nav className="tabs" aria-label={t('header.pages')}>
        {tabs().map((t) => (
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
        <LanguagePicker />
        <WorkspacePicker />
        {access === 'owner' && (
          <button
            type="button"
            className="btn btn-small"
            onClick={() => setMembersOpen(true)}
            title={t('members.open')}
            data-testid="members-button"
          >
            {t('members.button')}
          </button>
        )}
        <button
          type="button"
          className="status-button"
          onClick={() => setStatusOpen(true)}
          title={t('header.serverStatus')}
          data-testid="status-button"
        >
          <span className={`status-dot ${!h.checkedAt ? 'unknown' : !healthy ? 'down' : busy ? 'busy' : 'up'}`} />
          <span className="status-text">{statusText}</span>
        </button>
        <button
          type="button"
          className="icon-button"
          onClick={() => setTheme(NEXT_THEME[choice])}
          title={t('header.themeTitle', themeNames)}
          aria-label={t('header.themeLabel', themeNames)}
          data-testid="theme-toggle"
        >
          {THEME_ICON[choice]}
        </button>
        {(s.authConfigured || s.apiKey) && (
          <button
            type="button"
            className="btn btn-small"
            onClick={() => void session.logout()}
            title={s.user ? t('header.loggedInAs', { user: s.user }) : t('header.forget')}
            data-testid="logout"
          >
            {s.authConfigured && s.user ? t('header.logOutUser', { user: s.user }) : t('header.logOut')}
          </button>
        )}
      </div>
      <StatusDialog open={statusOpen} onClose={() => setStatusOpen(false)} />
      <MembersDialog
        open={membersOpen && access === 'owner'}
        model={members}
        label={s.workspace || t('workspace.defaultName')}
        onClose={closeMembers}
      />
    </header>
  );
}
