// Who the UI talks to the server as: the JWT (login or guest), the API key, the workspace, and
// whether the login page must be shown. The token lives under LightRAG's own storage key, so a
// user switching from LightRAG's web UI stays logged in.
import { ApiError } from '../api/errors';
import { t } from '../i18n';
import type { AuthBridge, Credentials } from '../api/client';
import { isExpired, readClaims } from '../api/jwt';
import type { AuthStatus, LoginResponse } from '../api/types';
import { createStore, type Store } from '../lib/store';
import type { KeyValueStorage } from '../lib/storage';

export const TOKEN_KEY = 'LIGHTRAG-API-TOKEN';
export const API_KEY_KEY = 'LIGHTRAG-API-KEY';
export const WORKSPACE_KEY = 'LIGHTRAG-WORKSPACE';

/** What the UI shows: a spinner while checking, the login form, the API key form, or the app. */
export type Gate = 'checking' | 'login' | 'apikey' | 'ready' | 'offline';

export interface SessionState {
  gate: Gate;
  token: string | null;
  apiKey: string | null;
  workspace: string;
  /** `true` when the server has accounts (AUTH_ACCOUNTS), `null` before /auth-status answered. */
  authConfigured: boolean | null;
  user: string | null;
  role: string | null;
  coreVersion: string | null;
  apiVersion: string | null;
  title: string | null;
  description: string | null;
  /** Why the login or API key form is shown (e.g. "Your session expired."). */
  message: string | null;
}

export interface SessionDeps {
  /** Where the token and workspace persist (localStorage in the browser). */
  storage: KeyValueStorage;
  /** Where an API key persists when the user did not ask to remember it (sessionStorage). */
  shortStorage: KeyValueStorage;
  /** GET /auth-status without credentials. */
  fetchAuthStatus: () => Promise<AuthStatus>;
  /** POST /login. */
  postLogin: (username: string, password: string) => Promise<LoginResponse>;
  now?: () => number;
}

export interface Session extends AuthBridge {
  store: Store<SessionState>;
  /** Asks the server how it authenticates and decides the gate. */
  start(): Promise<void>;
  login(username: string, password: string): Promise<void>;
  setApiKey(key: string, remember: boolean): void;
  logout(): Promise<void>;
  setWorkspace(name: string): void;
}

export function createSession(deps: SessionDeps): Session {
  const now = deps.now ?? (() => Date.now() / 1000);
  const storedKey = deps.storage.getItem(API_KEY_KEY) ?? deps.shortStorage.getItem(API_KEY_KEY);
  const store = createStore<SessionState>({
    gate: 'checking',
    token: deps.storage.getItem(TOKEN_KEY),
    apiKey: storedKey,
    workspace: deps.storage.getItem(WORKSPACE_KEY) ?? '',
    authConfigured: null,
    user: null,
    role: null,
    coreVersion: null,
    apiVersion: null,
    title: null,
    description: null,
    message: null,
  });

  let guestRefresh: Promise<boolean> | null = null;

  function setToken(token: string | null) {
    if (token) deps.storage.setItem(TOKEN_KEY, token);
    else deps.storage.removeItem(TOKEN_KEY);
    const claims = token ? readClaims(token) : null;
    store.set((s) => ({ ...s, token, user: claims?.sub ?? null, role: claims?.role ?? null }));
  }

  function applyStatus(status: AuthStatus | LoginResponse) {
    store.set((s) => ({
      ...s,
      coreVersion: status.core_version ?? s.coreVersion,
      apiVersion: status.api_version ?? s.apiVersion,
      title: status.webui_title ?? s.title,
      description: status.webui_description ?? s.description,
    }));
  }

  async function fetchGuestToken(): Promise<boolean> {
    const status = await deps.fetchAuthStatus();
    applyStatus(status);
    store.set((s) => ({ ...s, authConfigured: status.auth_configured }));
    if (status.auth_configured || !status.access_token) return false;
    setToken(status.access_token);
    return true;
  }

  const session: Session = {
    store,

    credentials(): Credentials {
      const s = store.get();
      return { token: s.token, apiKey: s.apiKey, workspace: s.workspace };
    },

    onNewToken(token: string) {
      if (token && token !== store.get().token) setToken(token);
    },

    refreshGuestToken(): Promise<boolean> {
      if (store.get().authConfigured !== false) return Promise.resolve(false);
      // One refresh for all the requests that failed at the same time.
      guestRefresh ??= fetchGuestToken()
        .catch(() => false)
        .finally(() => {
          guestRefresh = null;
        });
      return guestRefresh;
    },

    onAuthFailure(error: ApiError) {
      // 401 "Invalid API key: unknown, revoked or expired", "'ci' was revoked. Please login again
      // or use another key.": the key of the access store the UI uses no longer works (revoked in
      // the members page, expired) — ask for another one
      const keyRefused = error.isUnauthorized && Boolean(store.get().apiKey) && /\bkey\b/i.test(error.message);
      if (error.needsApiKey || keyRefused) {
        store.set((s) => ({
          ...s,
          gate: 'apikey',
          message: s.apiKey ? t('errors.apiKeyRejected') : t('errors.apiKeyNeeded'),
        }));
        return;
      }
      if (store.get().authConfigured) {
        setToken(null);
        store.set((s) => ({ ...s, gate: 'login', message: t('errors.sessionExpired') }));
      }
    },

    async start() {
      let status: AuthStatus;
      try {
        status = await deps.fetchAuthStatus();
      } catch (e) {
        store.set((s) => ({
          ...s,
          gate: 'offline',
          message: e instanceof Error ? e.message : String(e),
        }));
        return;
      }
      applyStatus(status);
      store.set((s) => ({ ...s, authConfigured: status.auth_configured, message: null }));
      if (!status.auth_configured) {
        if (status.access_token) setToken(status.access_token);
        store.set((s) => ({ ...s, gate: 'ready' }));
        return;
      }
      const token = store.get().token;
      const claims = token ? readClaims(token) : null;
      if (token && claims && claims.role !== 'guest' && !isExpired(claims, now())) {
        setToken(token);
        store.set((s) => ({ ...s, gate: 'ready' }));
      } else {
        setToken(null);
        store.set((s) => ({ ...s, gate: 'login' }));
      }
    },

    async login(username: string, password: string) {
      const response = await deps.postLogin(username, password);
      applyStatus(response);
      setToken(response.access_token);
      store.set((s) => ({
        ...s,
        gate: 'ready',
        message: null,
        authConfigured: response.auth_mode === 'enabled' ? true : s.authConfigured,
      }));
    },

    setApiKey(key: string, remember: boolean) {
      const k = key.trim();
      deps.storage.removeItem(API_KEY_KEY);
      deps.shortStorage.removeItem(API_KEY_KEY);
      if (k) (remember ? deps.storage : deps.shortStorage).setItem(API_KEY_KEY, k);
      store.set((s) => ({ ...s, apiKey: k || null, gate: s.gate === 'apikey' ? 'ready' : s.gate, message: null }));
    },

    async logout() {
      setToken(null);
      deps.storage.removeItem(API_KEY_KEY);
      deps.shortStorage.removeItem(API_KEY_KEY);
      store.set((s) => ({ ...s, apiKey: null, message: null }));
      if (store.get().authConfigured) {
        store.set((s) => ({ ...s, gate: 'login' }));
      } else {
        store.set((s) => ({ ...s, gate: 'checking' }));
        await session.start();
      }
    },

    setWorkspace(name: string) {
      const w = name.trim();
      if (w) deps.storage.setItem(WORKSPACE_KEY, w);
      else deps.storage.removeItem(WORKSPACE_KEY);
      store.set((s) => ({ ...s, workspace: w }));
    },
  };
  return session;
}
