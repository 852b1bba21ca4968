// The owners' /admin calls of the members page: method, path, query and body as the server's
// admin routes take them (crates/interfaces/server/src/access/admin_routes.rs).
import { describe, expect, it } from 'vitest';
import { ApiClient } from './client';
import { endpoints } from './endpoints';
import { ApiError } from './errors';

interface Call {
  method: string;
  url: string;
  body: unknown;
  headers: Record<string, string>;
}

function setup(answer: (call: Call) => Response = () => json({})) {
  const calls: Call[] = [];
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const call = {
      method: init?.method ?? 'GET',
      url: String(input),
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : init?.body,
      headers: (init?.headers ?? {}) as Record<string, string>,
    };
    calls.push(call);
    return answer(call);
  }) as typeof fetch;
  const api = new ApiClient({
    baseUrl: '/kb',
    fetch: fetchImpl,
    auth: {
      credentials: () => ({ token: null, apiKey: 'master', workspace: 'team_a' }),
      onNewToken: () => undefined,
      refreshGuestToken: async () => false,
      onAuthFailure: () => undefined,
    },
  });
  return { calls, server: endpoints(api) };
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

describe('admin endpoints', () => {
  it('list the grants of one workspace, the keys, the accounts and the audit log', async () => {
    const { calls, server } = setup();
    await server.grants('team_a');
    await server.grants('');
    await server.keys();
    await server.accounts();
    await server.audit('team_a', 20);
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      'GET /kb/admin/grants?workspace=team_a',
      'GET /kb/admin/grants?workspace=',
      'GET /kb/admin/keys',
      'GET /kb/admin/accounts',
      'GET /kb/admin/audit?workspace=team_a&limit=20',
    ]);
    expect(calls[0]?.headers).toMatchObject({ 'X-API-Key': 'master', 'LIGHTRAG-WORKSPACE': 'team_a' });
  });

  it('create a key with and without expiry, and revoke it by name', async () => {
    const { calls, server } = setup((c) => json(c.method === 'POST' ? { name: 'ci', key: 'lrk_x_y', expires: null } : {}));
    const made = await server.createKey('ci', 'team_a', 'reader');
    expect(made.key).toBe('lrk_x_y');
    await server.createKey('ci2', 'team_a', 'editor', 30);
    await server.revokeKey('ci 2');
    expect(calls[0]).toMatchObject({ method: 'POST', url: '/kb/admin/keys', body: { name: 'ci', workspace: 'team_a', role: 'reader' } });
    expect(calls[0]?.body).not.toHaveProperty('expires_days');
    expect(calls[1]?.body).toEqual({ name: 'ci2', workspace: 'team_a', role: 'editor', expires_days: 30 });
    expect(calls[2]).toMatchObject({ method: 'DELETE', url: '/kb/admin/keys?name=ci+2', body: undefined });
  });

  it('give, change and take away a role', async () => {
    const { calls, server } = setup();
    await server.setGrant('bob', 'team_a', 'admin');
    await server.removeGrant('bob', 'team_a');
    expect(calls[0]).toMatchObject({ method: 'POST', url: '/kb/admin/grants', body: { name: 'bob', workspace: 'team_a', role: 'admin' } });
    expect(calls[1]).toMatchObject({ method: 'DELETE', url: '/kb/admin/grants?name=bob&workspace=team_a' });
  });

  it("turn a non-owner's 403 into an ApiError the page can recognise", async () => {
    const { server } = setup(() => json({ detail: 'only owners may do this (the /admin routes)' }, 403));
    const e = await server.grants('team_a').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).status).toBe(403);
    // not taken for "the server wants an API key" (which would show the key form)
    expect((e as ApiError).needsApiKey).toBe(false);
  });
});
