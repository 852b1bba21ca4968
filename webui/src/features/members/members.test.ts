// The members page's logic: hidden for non-owners (403), the grants joined with the principals'
// kinds, a new key shown once and never again, changes reloading the page.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/errors';
import type { CreatedKey, GrantRecord, MemberRole, PrincipalRecord } from '../../api/types';
import { createMembersModel, parseExpiryDays } from './members';

function principal(kind: 'key' | 'account', name: string, grants: [string, MemberRole][], extra: Partial<PrincipalRecord> = {}): PrincipalRecord {
  return { kind, name, created: 1_700_000_000, expires: null, owner: false, revoked: false, managed: kind === 'account', grants, ...extra };
}

function fakeAdmin(owner = true) {
  const grants: GrantRecord[] = [
    { principal: 'ci', workspace: 'a', role: 'reader' },
    { principal: 'alice', workspace: 'a', role: 'editor' },
    { principal: 'bob', workspace: 'a', role: 'admin' },
    { principal: 'other', workspace: 'b', role: 'admin' },
  ];
  const keys = [principal('key', 'ci', [['a', 'reader']]), principal('key', 'other', [['b', 'admin']]), principal('key', 'old', [['a', 'reader']], { revoked: true })];
  const accounts = [principal('account', 'alice', [['a', 'editor']]), principal('account', 'bob', [['a', 'admin']], { managed: false }), principal('account', 'carol', [])];
  const calls: string[] = [];
  let made = 0;
  const refuse = () => Promise.reject(new ApiError(403, 'only owners may do this', undefined));
  const admin = {
    grants: (w: string) => (calls.push(`grants ${w}`), owner ? Promise.resolve({ grants: grants.filter((g) => g.workspace === w) }) : refuse()),
    keys: () => (calls.push('keys'), Promise.resolve({ keys })),
    accounts: () => (calls.push('accounts'), Promise.resolve({ accounts })),
    audit: (w: string) => (calls.push(`audit ${w}`), Promise.resolve({ entries: [{ time: 1, principal: 'master', workspace: w, action: 'admin.keys', outcome: 200, client: '127.0.0.1' }] })),
    setGrant: (n: string, w: string, r: MemberRole) => (calls.push(`grant ${n} ${w} ${r}`), Promise.resolve({ status: 'granted' })),
    removeGrant: (n: string, w: string) => (calls.push(`ungrant ${n} ${w}`), Promise.resolve({ status: 'ungranted' })),
    createKey: (n: string, w: string, r: MemberRole, d?: number): Promise<CreatedKey> => {
      calls.push(`create ${n} ${w} ${r} ${d ?? '-'}`);
      made += 1;
      keys.push(principal('key', n, [[w, r]]));
      return Promise.resolve({ name: n, key: `lrk_secret_${made}`, expires: null });
    },
    revokeKey: (n: string) => (calls.push(`revoke ${n}`), Promise.resolve({ status: 'revoked' })),
  };
  return { admin, calls };
}

const describe_ = (e: unknown) => (e instanceof Error ? e.message : String(e));

describe('members model', () => {
  it('a 403 from GET /admin/grants hides the page (not an error)', async () => {
    const { admin } = fakeAdmin(false);
    const m = createMembersModel(admin, 'a', describe_);
    expect(await m.probe()).toBe(false);
    expect(m.store.get().access).toBe('hidden');
    expect(m.store.get().error).toBeNull();
    await m.load();
    expect(m.store.get().access).toBe('hidden');
    expect(m.store.get().members).toEqual([]);
  });

  it('a 404 hides it too, but a network failure is an error and proves nothing', async () => {
    const { admin } = fakeAdmin();
    const notFound = createMembersModel({ ...admin, grants: () => Promise.reject(new ApiError(404, 'not found', undefined)) }, 'a', describe_);
    expect(await notFound.probe()).toBe(false);
    expect(notFound.store.get().access).toBe('hidden');
    const down = createMembersModel({ ...admin, grants: () => Promise.reject(new Error('offline')) }, 'a', describe_);
    expect(await down.probe()).toBe(false);
    expect(down.store.get()).toMatchObject({ access: 'unknown', error: 'offline' });
  });

  it("an owner sees the workspace's grants with each principal's kind, its keys and its audit", async () => {
    const { admin } = fakeAdmin();
    const m = createMembersModel(admin, 'a', describe_);
    expect(await m.probe()).toBe(true);
    await m.load();
    const s = m.store.get();
    expect(s.access).toBe('owner');
    expect(s.members).toEqual([
      { name: 'alice', kind: 'account', role: 'editor', revoked: false },
      { name: 'bob', kind: 'login', role: 'admin', revoked: false },
      { name: 'ci', kind: 'key', role: 'reader', revoked: false },
    ]);
    // keys with a role in this workspace only, revoked ones last
    expect(s.keys.map((k) => [k.name, k.role, k.revoked])).toEqual([
      ['ci', 'reader', false],
      ['old', 'reader', true],
    ]);
    // principals without a role here that could get one (not revoked keys)
    expect(s.candidates).toEqual(['carol', 'other']);
    expect(s.audit).toHaveLength(1);
  });

  it('shows a new key once: held until dismissed, never fetched again', async () => {
    const { admin, calls } = fakeAdmin();
    const m = createMembersModel(admin, 'a', describe_);
    await m.load();
    const made = await m.createKey('deploy', 'editor', 30);
    expect(calls).toContain('create deploy a editor 30');
    expect(made.key).toBe('lrk_secret_1');
    expect(m.store.get().revealed).toEqual({ name: 'deploy', key: 'lrk_secret_1', expires: null });
    // the list reloaded after the creation shows the key by name, not its secret
    expect(m.store.get().keys.map((k) => k.name)).toContain('deploy');
    expect(JSON.stringify(m.store.get().keys)).not.toContain('lrk_secret_1');
    m.dismissKey();
    expect(m.store.get().revealed).toBeNull();
    await m.load();
    expect(JSON.stringify(m.store.get())).not.toContain('lrk_secret_1');
  });

  it('role change, removal and revocation call the server and reload', async () => {
    const { admin, calls } = fakeAdmin();
    const m = createMembersModel(admin, 'a', describe_);
    await m.setRole('alice', 'admin');
    await m.remove('bob');
    await m.revoke('ci');
    expect(calls.filter((c) => !/^(grants|keys|accounts|audit)/.test(c))).toEqual(['grant alice a admin', 'ungrant bob a', 'revoke ci']);
    expect(calls.filter((c) => c === 'keys')).toHaveLength(3);
  });

  it('a refused change shows the server message and is thrown to the caller', async () => {
    const { admin } = fakeAdmin();
    const m = createMembersModel(
      { ...admin, createKey: () => Promise.reject(new ApiError(409, "a principal named 'ci' exists already", undefined)) },
      'a',
      describe_,
    );
    await expect(m.createKey('ci', 'reader')).rejects.toBeInstanceOf(ApiError);
    expect(m.store.get().error).toBe("a principal named 'ci' exists already");
    expect(m.store.get().revealed).toBeNull();
  });
});

describe('expiry days', () => {
  it('empty is never; whole days from 1; anything else is invalid', () => {
    expect(parseExpiryDays('')).toBeUndefined();
    expect(parseExpiryDays(' 30 ')).toBe(30);
    expect(parseExpiryDays('0')).toBeNull();
    expect(parseExpiryDays('1.5')).toBeNull();
    expect(parseExpiryDays('-2')).toBeNull();
    expect(parseExpiryDays('abc')).toBeNull();
  });
});
