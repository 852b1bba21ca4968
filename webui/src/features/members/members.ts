// The members page's data and actions for one workspace, outside React so it can be tested
// alone: who has which role there (grants, with the principal's kind), the workspace's API keys,
// its recent audit entries, and the one key just created — held until the user dismisses it and
// never fetched again (the server shows a key once).
import { ApiError } from '../../api/errors';
import type { Endpoints } from '../../api/endpoints';
import type { AuditRecord, CreatedKey, MemberRole, PrincipalRecord } from '../../api/types';
import { createStore, type Store } from '../../lib/store';

export const ROLES: MemberRole[] = ['reader', 'editor', 'admin'];

/** `key`, `account` (managed here), `login` (an AUTH_ACCOUNTS login), or `unknown`. */
export type PrincipalKind = 'key' | 'account' | 'login' | 'unknown';

export interface MemberRow {
  name: string;
  kind: PrincipalKind;
  role: MemberRole;
  revoked: boolean;
}

export interface KeyRow {
  name: string;
  role: MemberRole | null;
  created: number;
  expires: number | null;
  revoked: boolean;
}

export interface MembersState {
  /** `unknown` before the first answer; `owner` when the /admin routes answer; `hidden` on 403/404. */
  access: 'unknown' | 'owner' | 'hidden';
  loading: boolean;
  error: string | null;
  members: MemberRow[];
  keys: KeyRow[];
  audit: AuditRecord[];
  /** Principals that could get a role here (keys and accounts without one here). */
  candidates: string[];
  /** The key just created: shown once, until dismissed. */
  revealed: CreatedKey | null;
}

type Admin = Pick<
  Endpoints,
  'grants' | 'setGrant' | 'removeGrant' | 'keys' | 'accounts' | 'createKey' | 'revokeKey' | 'audit'
>;

/** Whether an error means "not an owner" (the page is hidden, not an error). */
export function refusesOwner(e: unknown): boolean {
  return e instanceof ApiError && (e.status === 403 || e.status === 404);
}

function kindOf(p: PrincipalRecord | undefined): PrincipalKind {
  if (!p) return 'unknown';
  if (p.kind === 'key') return 'key';
  return p.managed ? 'account' : 'login';
}

export interface MembersModel {
  store: Store<MembersState>;
  workspace: string;
  /** Asks whether the caller is an owner (GET /admin/grants); `true` when it is. */
  probe(): Promise<boolean>;
  /** Everything the page shows. */
  load(): Promise<void>;
  setRole(name: string, role: MemberRole): Promise<void>;
  remove(name: string): Promise<void>;
  createKey(name: string, role: MemberRole, expiresDays?: number): Promise<CreatedKey>;
  dismissKey(): void;
  revoke(name: string): Promise<void>;
}

export function initialMembersState(): MembersState {
  return {
    access: 'unknown',
    loading: false,
    error: null,
    members: [],
    keys: [],
    audit: [],
    candidates: [],
    revealed: null,
  };
}

export function createMembersModel(admin: Admin, workspace: string, describe: (e: unknown) => string): MembersModel {
  const store = createStore<MembersState>(initialMembersState());

  const hide = () => store.set((s) => ({ ...initialMembersState(), access: 'hidden', revealed: s.revealed }));

  async function load(): Promise<void> {
    store.set((s) => ({ ...s, loading: true, error: null }));
    try {
      const [grants, keys, accounts, audit] = await Promise.all([
        admin.grants(workspace),
        admin.keys(),
        admin.accounts(),
        admin.audit(workspace),
      ]);
      const principals = new Map<string, PrincipalRecord>();
      for (const p of [...accounts.accounts, ...keys.keys]) principals.set(p.name, p);
      const here = grants.grants.filter((g) => g.workspace === workspace);
      const members = here
        .map((g) => {
          const p = principals.get(g.principal);
          return { name: g.principal, kind: kindOf(p), role: g.role, revoked: Boolean(p?.revoked) };
        })
        .sort((a, b) => a.name.localeCompare(b.name));
      const keyRows = keys.keys
        .filter((k) => k.grants.some(([w]) => w === workspace))
        .map((k) => ({
          name: k.name,
          role: k.grants.find(([w]) => w === workspace)?.[1] ?? null,
          created: k.created,
          expires: k.expires,
          revoked: k.revoked,
        }))
        .sort((a, b) => Number(a.revoked) - Number(b.revoked) || a.name.localeCompare(b.name));
      const granted = new Set(here.map((g) => g.principal));
      const candidates = [...principals.values()]
        .filter((p) => !granted.has(p.name) && !p.revoked)
        .map((p) => p.name)
        .sort();
      store.set((s) => ({
        ...s,
        access: 'owner',
        loading: false,
        members,
        keys: keyRows,
        audit: audit.entries,
        candidates,
      }));
    } catch (e) {
      if (refusesOwner(e)) hide();
      else store.set((s) => ({ ...s, loading: false, error: describe(e) }));
    }
  }

  /** Runs a change, then reloads; an error is shown after the reload (which clears errors) and thrown. */
  async function change<T>(run: () => Promise<T>): Promise<T> {
    store.set((s) => ({ ...s, error: null }));
    let out: T;
    try {
      out = await run();
    } catch (e) {
      if (e instanceof ApiError && e.status === 403) {
        hide();
      } else {
        await load();
        store.set((s) => ({ ...s, error: describe(e) }));
      }
      throw e;
    }
    await load();
    return out;
  }

  return {
    store,
    workspace,
    async probe() {
      try {
        await admin.grants(workspace);
        store.set((s) => ({ ...s, access: 'owner' }));
        return true;
      } catch (e) {
        if (refusesOwner(e)) {
          hide();
          return false;
        }
        // another failure (network, 5xx) proves nothing: the page stays hidden until it answers
        store.set((s) => ({ ...s, error: describe(e) }));
        return false;
      }
    },
    load,
    setRole: (name, role) => change(() => admin.setGrant(name, workspace, role)).then(() => undefined),
    remove: (name) => change(() => admin.removeGrant(name, workspace)).then(() => undefined),
    async createKey(name, role, expiresDays) {
      const made = await change(async () => {
        const k = await admin.createKey(name, workspace, role, expiresDays);
        store.set((s) => ({ ...s, revealed: k }));
        return k;
      });
      return made;
    },
    dismissKey() {
      store.set((s) => ({ ...s, revealed: null }));
    },
    revoke: (name) => change(() => admin.revokeKey(name)).then(() => undefined),
  };
}

/** Days until expiry as typed: empty = never; otherwise a whole number ≥ 1, or `null` when invalid. */
export function parseExpiryDays(text: string): number | undefined | null {
  const t = text.trim();
  if (t === '') return undefined;
  if (!/^\d+$/.test(t)) return null;
  const n = Number(t);
  return n >= 1 && n <= 36500 ? n : null;
}
