import { describe, expect, it } from 'vitest';
import { fakeJwt } from '../testing/fakeJwt';
import { ApiError } from '../api/errors';
import type { AuthStatus } from '../api/types';
import { memoryStorage } from '../lib/storage';
import { API_KEY_KEY, TOKEN_KEY, WORKSPACE_KEY, createSession } from './session';

const NOW = 1_000_000;

function setup(status: AuthStatus, stored: Record<string, string> = {}) {
  const storage = memoryStorage();
  const shortStorage = memoryStorage();
  for (const [k, v] of Object.entries(stored)) storage.setItem(k, v);
  let statusCalls = 0;
  const logins: [string, string][] = [];
  const session = createSession({
    storage,
    shortStorage,
    now: () => NOW,
    fetchAuthStatus: async () => {
      statusCalls += 1;
      return { ...status, access_token: status.access_token ? `${status.access_token}-${statusCalls}` : undefined };
    },
    postLogin: async (u, p) => {
      logins.push([u, p]);
      if (p !== 'right') throw new ApiError(401, 'Incorrect credentials', null);
      return {
        access_token: fakeJwt({ sub: u, role: 'user', exp: NOW + 3600 }),
        token_type: 'bearer',
        auth_mode: 'enabled',
        core_version: '0.1.0',
      };
    },
  });
  return { session, storage, shortStorage, logins, statusCalls: () => statusCalls };
}

const guestStatus: AuthStatus = { auth_configured: false, access_token: 'guest', auth_mode: 'disabled', webui_title: 'KB' };
const accountsStatus: AuthStatus = { auth_configured: true, auth_mode: 'enabled', api_version: '0.1.0' };

describe('session', () => {
  it('without accounts takes the guest token and is ready', async () => {
    const { session, storage } = setup(guestStatus);
    await session.start();
    expect(session.store.get()).toMatchObject({ gate: 'ready', authConfigured: false, title: 'KB' });
    expect(storage.getItem(TOKEN_KEY)).toBe('guest-1');
    expect(session.credentials().token).toBe('guest-1');
  });

  it('with accounts asks for a login unless a valid user token is stored', async () => {
    const fresh = setup(accountsStatus);
    await fresh.session.start();
    expect(fresh.session.store.get().gate).toBe('login');

    const valid = fakeJwt({ sub: 'admin', role: 'user', exp: NOW + 60 });
    const kept = setup(accountsStatus, { [TOKEN_KEY]: valid });
    await kept.session.start();
    expect(kept.session.store.get()).toMatchObject({ gate: 'ready', user: 'admin', token: valid });

    const expired = setup(accountsStatus, { [TOKEN_KEY]: fakeJwt({ sub: 'admin', role: 'user', exp: NOW - 1 }) });
    await expired.session.start();
    expect(expired.session.store.get().gate).toBe('login');
    expect(expired.storage.getItem(TOKEN_KEY)).toBeNull();

    const guest = setup(accountsStatus, { [TOKEN_KEY]: fakeJwt({ sub: 'guest', role: 'guest', exp: NOW + 60 }) });
    await guest.session.start();
    expect(guest.session.store.get().gate).toBe('login');
  });

  it('logs in, keeps the token, and a failed login throws without changing the gate', async () => {
    const { session, storage } = setup(accountsStatus);
    await session.start();
    await expect(session.login('admin', 'wrong')).rejects.toMatchObject({ status: 401 });
    expect(session.store.get().gate).toBe('login');
    await session.login('admin', 'right');
    expect(session.store.get()).toMatchObject({ gate: 'ready', user: 'admin', role: 'user' });
    expect(storage.getItem(TOKEN_KEY)).toBe(session.store.get().token);
  });

  it('takes renewed tokens and goes back to the login page when the server refuses the token', async () => {
    const { session, storage } = setup(accountsStatus);
    await session.start();
    await session.login('admin', 'right');
    const renewed = fakeJwt({ sub: 'admin', role: 'user', exp: NOW + 7200 });
    session.onNewToken(renewed);
    expect(storage.getItem(TOKEN_KEY)).toBe(renewed);
    session.onAuthFailure(new ApiError(401, 'Token expired', null));
    expect(session.store.get()).toMatchObject({ gate: 'login', token: null });
    expect(session.store.get().message).toMatch(/expired/);
  });

  it('refreshes the guest token only in guest mode, once for simultaneous failures', async () => {
    const guest = setup(guestStatus);
    await guest.session.start();
    const [a, b] = await Promise.all([guest.session.refreshGuestToken(), guest.session.refreshGuestToken()]);
    expect(a && b).toBe(true);
    expect(guest.statusCalls()).toBe(2);
    expect(guest.session.credentials().token).toBe('guest-2');

    const accounts = setup(accountsStatus);
    await accounts.session.start();
    expect(await accounts.session.refreshGuestToken()).toBe(false);
  });

  it('asks for an API key on 403 and remembers it where told', async () => {
    const { session, storage, shortStorage } = setup(guestStatus);
    await session.start();
    session.onAuthFailure(new ApiError(403, 'API Key required', null));
    expect(session.store.get().gate).toBe('apikey');
    session.setApiKey(' k1 ', false);
    expect(session.store.get()).toMatchObject({ gate: 'ready', apiKey: 'k1' });
    expect(shortStorage.getItem(API_KEY_KEY)).toBe('k1');
    expect(storage.getItem(API_KEY_KEY)).toBeNull();
    session.setApiKey('k2', true);
    expect(storage.getItem(API_KEY_KEY)).toBe('k2');
    expect(shortStorage.getItem(API_KEY_KEY)).toBeNull();
    expect(session.credentials().apiKey).toBe('k2');
  });

  it('asks for another API key when a revoked or expired key gets 401', async () => {
    const { session } = setup(guestStatus, { [API_KEY_KEY]: 'lrk_revoked' });
    await session.start();
    expect(session.store.get().gate).toBe('ready');
    session.onAuthFailure(new ApiError(401, 'Invalid API key: unknown, revoked or expired', null));
    expect(session.store.get()).toMatchObject({ gate: 'apikey', message: 'The server did not accept this API key.' });
    const revoked = setup(guestStatus, { [API_KEY_KEY]: 'lrk_revoked' });
    await revoked.session.start();
    revoked.session.onAuthFailure(new ApiError(401, "'ci' was revoked. Please login again or use another key.", null));
    expect(revoked.session.store.get().gate).toBe('apikey');
    // a 401 about a token, without a key, does not
    const other = setup(guestStatus);
    await other.session.start();
    other.session.onAuthFailure(new ApiError(401, 'Invalid token. Please login again.', null));
    expect(other.session.store.get().gate).toBe('ready');
  });

  it('logs out: forgets credentials; guest mode gets a new guest token', async () => {
    const accounts = setup(accountsStatus);
    await accounts.session.start();
    await accounts.session.login('admin', 'right');
    await accounts.session.logout();
    expect(accounts.session.store.get()).toMatchObject({ gate: 'login', token: null, apiKey: null });

    const guest = setup(guestStatus);
    await guest.session.start();
    guest.session.setApiKey('k', true);
    await guest.session.logout();
    expect(guest.storage.getItem(API_KEY_KEY)).toBeNull();
    expect(guest.session.store.get()).toMatchObject({ gate: 'ready', token: 'guest-2' });
  });

  it('persists the workspace and sends it', async () => {
    const { session, storage } = setup(guestStatus, { [WORKSPACE_KEY]: 'team_a' });
    expect(session.credentials().workspace).toBe('team_a');
    session.setWorkspace(' team_b ');
    expect(storage.getItem(WORKSPACE_KEY)).toBe('team_b');
    session.setWorkspace('');
    expect(storage.getItem(WORKSPACE_KEY)).toBeNull();
    expect(session.credentials().workspace).toBe('');
  });

  it('goes offline with the reason when /auth-status cannot be reached', async () => {
    const storage = memoryStorage();
    const session = createSession({
      storage,
      shortStorage: memoryStorage(),
      fetchAuthStatus: async () => {
        throw new Error('Cannot reach the server');
      },
      postLogin: async () => {
        throw new Error('unused');
      },
    });
    await session.start();
    expect(session.store.get()).toMatchObject({ gate: 'offline', message: 'Cannot reach the server' });
  });
});
