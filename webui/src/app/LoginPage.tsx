// The login form (accounts configured) and the API key form (the server answered 403 "API Key
// required"). Shown instead of the app until the session is ready.
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { describeError } from '../api/errors';
import { runtimeConfig } from '../config';
import { useStore } from '../lib/store';
import { LanguagePicker } from './LanguagePicker';
import { session } from './services';

export function LoginPage() {
  const { t } = useTranslation();
  const s = useStore(session.store);
  const [mode, setMode] = useState<'password' | 'apikey'>(s.gate === 'apikey' ? 'apikey' : 'password');
  const effective = s.gate === 'apikey' ? 'apikey' : mode;
  const title = s.title ?? runtimeConfig.title;
  const description = s.description ?? runtimeConfig.description;
  return (
    <main className="login-page">
      <section className="login-card" aria-labelledby="login-title">
        <img src="./favicon.svg" alt="" width={48} height={48} />
        <h1 id="login-title">{title}</h1>
        <p className="muted">{description}</p>
        {s.message && (
          <p className="login-message" role="alert">
            {s.message}
          </p>
        )}
        {effective === 'password' ? <PasswordForm /> : <ApiKeyForm />}
        {s.gate === 'login' && (
          <button type="button" className="link-button" onClick={() => setMode(effective === 'password' ? 'apikey' : 'password')}>
            {effective === 'password' ? t('login.useApiKey') : t('login.usePassword')}
          </button>
        )}
        <LanguagePicker />
        <p className="login-versions muted">
          {s.coreVersion && <>{t('login.core', { version: s.coreVersion })} · </>}
          {t('login.api', { version: s.apiVersion ?? '?' })}
        </p>
      </section>
    </main>
  );
}

function PasswordForm() {
  const { t } = useTranslation();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await session.login(username.trim(), password);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="login-form" onSubmit={submit}>
      <label className="field">
        <span>{t('login.userName')}</span>
        <input
          name="username"
          autoComplete="username"
          value={username}
          onChange={(e) => setUsername(e.target.value)}
          required
          autoFocus
        />
      </label>
      <label className="field">
        <span>{t('login.password')}</span>
        <input
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          required
        />
      </label>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" className="btn btn-primary" disabled={busy || !username || !password}>
        {busy ? t('login.loggingIn') : t('login.logIn')}
      </button>
    </form>
  );
}

function ApiKeyForm() {
  const { t } = useTranslation();
  const [key, setKey] = useState('');
  const [remember, setRemember] = useState(true);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    session.setApiKey(key, remember);
  };
  return (
    <form className="login-form" onSubmit={submit}>
      <label className="field">
        <span>{t('login.apiKey')}</span>
        <input
          name="api-key"
          type="password"
          autoComplete="off"
          value={key}
          onChange={(e) => setKey(e.target.value)}
          required
          autoFocus
        />
      </label>
      <label className="checkbox">
        <input type="checkbox" checked={remember} onChange={(e) => setRemember(e.target.checked)} />
        <span>{t('login.remember')}</span>
      </label>
      <button type="submit" className="btn btn-primary" disabled={!key.trim()}>
        {t('login.continue')}
      </button>
    </form>
  );
}
