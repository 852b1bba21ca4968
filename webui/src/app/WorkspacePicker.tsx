// Picks the workspace (the LIGHTRAG-WORKSPACE header sent on every request). Lists the server's
// workspaces (GET /workspaces) and accepts a new name, which the server creates on first use.
import { useEffect, useId, useState, type FormEvent } from 'react';
import { ApiError, describeError } from '../api/errors';
import { useStore } from '../lib/store';
import { notify } from '../state/notices';
import { server, session } from './services';

const VALID = /^[A-Za-z0-9_]{0,64}$/;

export function WorkspacePicker() {
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
        if (!quiet) notify('error', `Cannot list the workspaces: ${describeError(e)}`);
      });
    return () => {
      alive = false;
    };
  }, [current]);

  const options = Array.from(new Set(['', ...names, current])).sort();
  const label = (n: string) => (n === '' ? `default${defaultName ? ` (${defaultName})` : ''}` : n);

  const add = (e: FormEvent) => {
    e.preventDefault();
    const name = draft.trim();
    if (!VALID.test(name) || name.startsWith('__')) {
      notify('error', 'A workspace name has letters, digits and _ only (at most 64), and does not start with __.');
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
          New workspace name
        </label>
        <input
          id={id}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          placeholder="new_workspace"
          autoFocus
          size={14}
        />
        <button type="submit" className="btn btn-small">
          Open
        </button>
        <button type="button" className="btn btn-small" onClick={() => setAdding(false)}>
          Cancel
        </button>
      </form>
    );
  }
  return (
    <div className="workspace-picker">
      <label htmlFor={id} className="visually-hidden">
        Workspace
      </label>
      <select
        id={id}
        value={current}
        data-testid="workspace-select"
        title="Workspace (sent as the LIGHTRAG-WORKSPACE header)"
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
        <option value={'\u0000new'}>New workspace…</option>
      </select>
    </div>
  );
}
