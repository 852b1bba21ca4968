// Picks the workspace (the LIGHTRAG-WORKSPACE header sent on every request). Lists the caller's
// workspaces (GET /workspaces lists only those) and accepts a new name, which the server creates
// on first use. A current workspace that is not one of the caller's (remembered from another
// session) is shown as such, never as one of theirs.
import { useEffect, useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, describeError } from '../api/errors';
import type { WorkspaceList } from '../api/types';
import { useStore } from '../lib/store';
import { notify } from '../state/notices';
import { server, session } from './services';
import { workspaceOptions } from './workspaceOptions';

const VALID = /^[A-Za-z0-9_]{0,64}$/;

export function WorkspacePicker() {
  const { t } = useTranslation();
  const current = useStore(session.store, (s) => s.workspace);
  const [list, setList] = useState<WorkspaceList | null>(null);
  // names typed as new workspaces in this page (not remembered: a reload forgets them)
  const [opened, setOpened] = useState<string[]>([]);
  const [adding, setAdding] = useState(false);
  const [draft, setDraft] = useState('');
  const id = useId();

  useEffect(() => {
    let alive = true;
    server
      .workspaces()
      .then((w) => {
        if (!alive) return;
        setList(w);
      })
      .catch((e: unknown) => {
        if (!alive) return;
        setList(null);
        // a server without the route (404) simply offers no list, and a refused login is shown
        // by the login page; anything else is worth saying
        const quiet = e instanceof ApiError && (e.status === 404 || e.isUnauthorized || e.needsApiKey);
        if (!quiet) notify('error', t('workspace.listFailed', { error: describeError(e) }));
      });
    return () => {
      alive = false;
    };
  }, [current]);

  const options = workspaceOptions(list, current, opened);
  const defaultName = list?.default ?? '';
  const name = (n: string) =>
    n === '' ? (defaultName ? t('workspace.defaultNamed', { name: defaultName }) : t('workspace.defaultName')) : n;
  const foreign = options.some((o) => o.foreign);

  const add = (e: FormEvent) => {
    e.preventDefault();
    const name = draft.trim();
    if (!VALID.test(name) || name.startsWith('__')) {
      notify('error', t('workspace.invalid'));
      return;
    }
    setOpened((o) => [...o, name]);
    session.setWorkspace(name);
    setAdding(false);
    setDraft('');
  };

  if (adding) {
    return (
      <form className="workspace-picker" onSubmit={add}>
        <label htmlFor={id} className="visually-hidden">
          {t('workspace.newName')}
        </label>
        <input
          id={id}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          placeholder={t('workspace.placeholder')}
          autoFocus
          size={14}
        />
        <button type="submit" className="btn btn-small">
          {t('common.open')}
        </button>
        <button type="button" className="btn btn-small" onClick={() => setAdding(false)}>
          {t('common.cancel')}
        </button>
      </form>
    );
  }
  return (
    <div className="workspace-picker">
      <label htmlFor={id} className="visually-hidden">
        {t('workspace.label')}
      </label>
      <select
        id={id}
        value={current}
        data-testid="workspace-select"
        title={foreign ? t('workspace.notYoursTitle', { name: name(current) }) : t('workspace.title')}
        aria-invalid={foreign || undefined}
        className={foreign ? 'workspace-foreign' : undefined}
        onChange={(e) => {
          if (e.target.value === '\u0000new') setAdding(true);
          else session.setWorkspace(e.target.value);
        }}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value} data-foreign={o.foreign || undefined}>
            {o.foreign ? t('workspace.notYours', { name: name(o.value) }) : name(o.value)}
          </option>
        ))}
        <option value={'\u0000new'}>{t('workspace.new')}</option>
      </select>
      {foreign && (
        <span
          className="workspace-warning"
          role="status"
          title={t('workspace.notYoursTitle', { name: name(current) })}
          data-testid="workspace-not-yours"
        >
          <span aria-hidden="true">⚠</span>
          <span className="visually-hidden">{t('workspace.notYoursShort')}</span>
        </span>
      )}
    </div>
  );
}
