// The members dialog's markup: a new key appears once, with its warning and a copy button, and is
// gone once dismissed; every control in the rows has an accessible name.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { createMembersModel } from './members';
import { MembersDialog } from './MembersDialog';

const never = () => new Promise<never>(() => undefined);
const admin = {
  grants: never,
  keys: never,
  accounts: never,
  audit: never,
  setGrant: never,
  removeGrant: never,
  createKey: never,
  revokeKey: never,
};

function render(model: ReturnType<typeof createMembersModel>) {
  return renderToStaticMarkup(<MembersDialog open model={model} label="team_a" onClose={() => undefined} />);
}

describe('members dialog', () => {
  it('shows a new key once, with the warning and a copy button, until dismissed', () => {
    const model = createMembersModel(admin, 'team_a', String);
    model.store.set((s) => ({ ...s, access: 'owner', revealed: { name: 'ci', key: 'lrk_abc_secret', expires: null } }));
    const html = render(model);
    expect(html).toContain('value="lrk_abc_secret"');
    expect(html).toContain('This is the only time the key ci is shown');
    expect(html).toContain('>Copy<');
    expect(html).toContain('aria-label="The new key ci"');
    model.dismissKey();
    const after = render(model);
    expect(after).not.toContain('lrk_abc_secret');
    expect(after).toContain('Create the key');
  });

  it('names every row control after its principal, and lists the audit with Intl times', () => {
    const model = createMembersModel(admin, 'team_a', String);
    model.store.set((s) => ({
      ...s,
      access: 'owner',
      members: [{ name: 'alice', kind: 'account', role: 'editor', revoked: false }],
      keys: [{ name: 'ci', role: 'reader', created: 1_700_000_000, expires: null, revoked: false }],
      audit: [{ time: 1_700_000_000_000, principal: 'master', workspace: 'team_a', action: 'admin.keys.create', outcome: 200, client: '' }],
    }));
    const html = render(model);
    expect(html).toContain('aria-label="Role of alice"');
    expect(html).toContain('aria-label="Remove the role of alice"');
    expect(html).toContain('aria-label="Revoke the key ci"');
    expect(html).toContain('admin.keys.create');
    expect(html).toContain(new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(1_700_000_000_000)));
  });
});
