// Picks the workspace (the LIGHTRAG-WORKSPACE header sent on every request). Lists the server's
// workspaces (GET /workspaces) and accepts a new name, which the server creates on first use.
import { useEffect, useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, describeError } from '../api/errors';
import { useStore } from '../lib/store';
import { notify } from '../state/notices';
import { server, session } from './services';

const VALID = /^[A-Za-z0-9_]{0,64}$/;

export function WorkspacePicker() {
  const { t } = useTranslation();
  const current = useStore(session.store, (s) => s.workspace);
  const [names, setNames] = useState<string[]>([]);
  const [defaultName, setDefaultName] = useState('');
  const [adding, setAdding] = useState(false);
  const [draft, setDraft] = useState('');
  const id = useId();

  useEffect(() => {
    let alive = true;
    server
      .workspaces()
      .then((w) => {
        if (!alive) return;
        setNames(w.workspaces);
        setDefaultName(w.default);
      })
      .catch((e: unknown) => {
        if (!alive) return;
        setNames([]);
        // a server without the route (404) simply offers no list, and a refused login is shown
        // by the login page; anything else is worth saying
        const quiet = e instanceof ApiError && (e.status === 404 || e.isUnauthorized || e.needsApiKey);
        if (!quiet) notify('error', t('workspace.listFailed', { error: describeError(e) }));
      });
    return () => {
      alive = false;
    };
  }, [current]);

  const options = Array.from(new Set(['', ...names, current])).sort();
  const label = (n: string) =>
    n === '' ? (defaultName ? t('workspace.defaultNamed', { name: defaultName }) : t('workspace.defaultName')) : n;

  const add = (e: FormEvent) => {
    e.preventDefault();
    const name = draft.trim();
    if (!VALID.test(name) || name.startsWith('__')) {
      notify('error', t('workspace.invalid'));
      return;
    }
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
        title={t('workspace.title')}
        onChange={(e) => {
          if (e.target.value === '\u0000new') setAdding(true);
          else session.setWorkspace(e.target.value);
        }}
      >
        {options.map((n) => (
          <option key={n} value={n}>
            {label(n)}
          </option>
        ))}
        <option value={'\u0000new'}>{t('workspace.new')}</option>
      </select>
    </div>
  );
}
