// The members page of one workspace (owners only; the header shows its button when
// GET /admin/grants answers): who has which role, with role change and removal; a role for an
// existing principal; a new API key for the workspace, shown once; the workspace's keys with
// revoke; the recent audit entries.
import { useEffect, useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { MemberRole } from '../../api/types';
import { Confirm } from '../../components/Confirm';
import { Dialog } from '../../components/Dialog';
import { formatDate } from '../../i18n/format';
import { useStore } from '../../lib/store';
import { notify } from '../../state/notices';
import { type MembersModel, parseExpiryDays, ROLES } from './members';
import './members.css';

export interface MembersDialogProps {
  open: boolean;
  model: MembersModel;
  /** The workspace as the user reads it ("default" for ""). */
  label: string;
  onClose: () => void;
}

export function MembersDialog({ open, model, label, onClose }: MembersDialogProps) {
  const { t } = useTranslation();
  const s = useStore(model.store);
  useEffect(() => {
    if (open) void model.load();
  }, [open, model]);
  useEffect(() => {
    if (open && s.access === 'hidden') onClose();
  }, [open, s.access, onClose]);
  return (
    <Dialog open={open} title={t('members.title', { workspace: label })} onClose={onClose} wide testId="members-dialog">
      {s.error && (
        <p className="form-error" role="alert">
          {s.error}
        </p>
      )}
      <Grants model={model} />
      <NewKey model={model} />
      <Keys model={model} />
      <Audit model={model} />
    </Dialog>
  );
}

function RoleSelect({ value, onChange, label }: { value: MemberRole; onChange: (r: MemberRole) => void; label: string }) {
  const { t } = useTranslation();
  return (
    <select value={value} aria-label={label} onChange={(e) => onChange(e.target.value as MemberRole)}>
      {ROLES.map((r) => (
        <option key={r} value={r}>
          {roleLabel(t, r)}
        </option>
      ))}
    </select>
  );
}

type Translate = (key: string) => string;

export function roleLabel(t: Translate, role: MemberRole): string {
  switch (role) {
    case 'reader':
      return t('members.role.reader');
    case 'editor':
      return t('members.role.editor');
    default:
      return t('members.role.admin');
  }
}

function kindLabel(t: Translate, kind: string): string {
  switch (kind) {
    case 'key':
      return t('members.kind.key');
    case 'account':
      return t('members.kind.account');
    case 'login':
      return t('members.kind.login');
    default:
      return t('members.kind.unknown');
  }
}

function Grants({ model }: { model: MembersModel }) {
  const { t } = useTranslation();
  const s = useStore(model.store);
  const [removing, setRemoving] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [role, setRole] = useState<MemberRole>('reader');
  const listId = useId();
  const add = (e: FormEvent) => {
    e.preventDefault();
    const n = name.trim();
    if (!n) return;
    model
      .setRole(n, role)
      .then(() => {
        setName('');
        notify('success', t('members.granted', { name: n, role: roleLabel(t, role) }));
      })
      .catch(() => undefined);
  };
  return (
    <section className="members-section" aria-labelledby={`${listId}-h`}>
      <h3 id={`${listId}-h`}>{t('members.grantsHeading')}</h3>
      {s.members.length === 0 ? (
        <p className="muted">{t('members.noGrants')}</p>
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="members-grants">
            <thead>
              <tr>
                <th scope="col">{t('members.principal')}</th>
                <th scope="col">{t('members.kindHeading')}</th>
                <th scope="col">{t('members.roleHeading')}</th>
                <th scope="col">
                  <span className="visually-hidden">{t('members.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {s.members.map((m) => (
                <tr key={m.name} data-principal={m.name}>
                  <td>
                    {m.name}
                    {m.revoked && <span className="badge members-revoked">{t('members.revoked')}</span>}
                  </td>
                  <td>{kindLabel(t, m.kind)}</td>
                  <td>
                    <RoleSelect
                      value={m.role}
                      label={t('members.roleOf', { name: m.name })}
                      onChange={(r) => void model.setRole(m.name, r).catch(() => undefined)}
                    />
                  </td>
                  <td>
                    <button
                      type="button"
                      className="btn btn-small btn-danger-outline"
                      aria-label={t('members.removeOf', { name: m.name })}
                      onClick={() => setRemoving(m.name)}
                    >
                      {t('members.remove')}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <form className="members-form" onSubmit={add} aria-label={t('members.addHeading')}>
        <label className="field">
          <span>{t('members.principalName')}</span>
          <input
            value={name}
            list={`${listId}-names`}
            onChange={(e) => setName(e.target.value)}
            autoComplete="off"
            data-testid="members-grant-name"
          />
          <datalist id={`${listId}-names`}>
            {s.candidates.map((c) => (
              <option key={c} value={c} />
            ))}
          </datalist>
        </label>
        <label className="field">
          <span>{t('members.roleHeading')}</span>
          <RoleSelect value={role} onChange={setRole} label={t('members.newRole')} />
        </label>
        <button type="submit" className="btn btn-primary" disabled={!name.trim()}>
          {t('members.addRole')}
        </button>
      </form>
      <Confirm
        open={removing !== null}
        title={t('members.removeTitle')}
        confirmLabel={t('members.remove')}
        danger
        onClose={() => setRemoving(null)}
        onConfirm={() => {
          const n = removing;
          setRemoving(null);
          if (n) void model.remove(n).catch(() => undefined);
        }}
      >
        <p>{t('members.removeText', { name: removing ?? '', workspace: model.workspace || t('workspace.defaultName') })}</p>
      </Confirm>
    </section>
  );
}

function NewKey({ model }: { model: MembersModel }) {
  const { t } = useTranslation();
  const s = useStore(model.store);
  const [name, setName] = useState('');
  const [role, setRole] = useState<MemberRole>('reader');
  const [days, setDays] = useState('');
  const [busy, setBusy] = useState(false);
  const id = useId();
  const expiry = parseExpiryDays(days);
  const create = (e: FormEvent) => {
    e.preventDefault();
    if (expiry === null || !name.trim()) return;
    setBusy(true);
    model
      .createKey(name.trim(), role, expiry)
      .then(() => {
        setName('');
        setDays('');
      })
      .catch(() => undefined)
      .finally(() => setBusy(false));
  };
  const copy = () => {
    const key = s.revealed?.key;
    if (!key) return;
    navigator.clipboard
      ?.writeText(key)
      .then(() => notify('success', t('members.copied')))
      .catch(() => notify('error', t('members.copyFailed')));
  };
  return (
    <section className="members-section" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>{t('members.newKeyHeading')}</h3>
      {s.revealed ? (
        <div className="members-reveal" role="status" data-testid="members-new-key">
          <p className="members-warning">{t('members.keyOnce', { name: s.revealed.name })}</p>
          <div className="members-key-row">
            <input
              readOnly
              value={s.revealed.key}
              aria-label={t('members.keyValue', { name: s.revealed.name })}
              onFocus={(e) => e.target.select()}
              data-testid="members-key-value"
            />
            <button type="button" className="btn" onClick={copy}>
              {t('members.copy')}
            </button>
          </div>
          <button type="button" className="btn btn-primary" onClick={() => model.dismissKey()} data-testid="members-key-done">
            {t('members.keyDone')}
          </button>
        </div>
      ) : (
        <form className="members-form" onSubmit={create} aria-label={t('members.newKeyHeading')}>
          <label className="field">
            <span>{t('members.keyName')}</span>
            <input value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" data-testid="members-key-name" />
          </label>
          <label className="field">
            <span>{t('members.roleHeading')}</span>
            <RoleSelect value={role} onChange={setRole} label={t('members.keyRole')} />
          </label>
          <label className="field">
            <span>{t('members.expiryDays')}</span>
            <input
              value={days}
              inputMode="numeric"
              onChange={(e) => setDays(e.target.value)}
              placeholder={t('members.never')}
              aria-invalid={expiry === null || undefined}
              size={8}
              data-testid="members-key-days"
            />
          </label>
          <button type="submit" className="btn btn-primary" disabled={busy || !name.trim() || expiry === null}>
            {t('members.createKey')}
          </button>
        </form>
      )}
    </section>
  );
}

function Keys({ model }: { model: MembersModel }) {
  const { t } = useTranslation();
  const s = useStore(model.store);
  const [revoking, setRevoking] = useState<string | null>(null);
  const id = useId();
  return (
    <section className="members-section" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>{t('members.keysHeading')}</h3>
      {s.keys.length === 0 ? (
        <p className="muted">{t('members.noKeys')}</p>
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="members-keys">
            <thead>
              <tr>
                <th scope="col">{t('members.keyName')}</th>
                <th scope="col">{t('members.roleHeading')}</th>
                <th scope="col">{t('members.created')}</th>
                <th scope="col">{t('members.expires')}</th>
                <th scope="col">
                  <span className="visually-hidden">{t('members.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {s.keys.map((k) => (
                <tr key={k.name} data-key={k.name}>
                  <td>{k.name}</td>
                  <td>{k.role ? roleLabel(t, k.role) : '—'}</td>
                  <td>{formatDate(k.created)}</td>
                  <td>{k.expires === null ? t('members.never') : formatDate(k.expires)}</td>
                  <td>
                    {k.revoked ? (
                      <span className="badge members-revoked">{t('members.revoked')}</span>
                    ) : (
                      <button
                        type="button"
                        className="btn btn-small btn-danger-outline"
                        aria-label={t('members.revokeOf', { name: k.name })}
                        onClick={() => setRevoking(k.name)}
                      >
                        {t('members.revoke')}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Confirm
        open={revoking !== null}
        title={t('members.revokeTitle')}
        confirmLabel={t('members.revoke')}
        danger
        onClose={() => setRevoking(null)}
        onConfirm={() => {
          const n = revoking;
          setRevoking(null);
          if (n) void model.revoke(n).catch(() => undefined);
        }}
      >
        <p>{t('members.revokeText', { name: revoking ?? '' })}</p>
      </Confirm>
    </section>
  );
}

function Audit({ model }: { model: MembersModel }) {
  const { t } = useTranslation();
  const s = useStore(model.store);
  const id = useId();
  return (
    <section className="members-section" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>{t('members.auditHeading')}</h3>
      {s.audit.length === 0 ? (
        <p className="muted">{t('members.noAudit')}</p>
      ) : (
        <div className="table-wrap members-audit">
          <table className="table" data-testid="members-audit">
            <thead>
              <tr>
                <th scope="col">{t('members.time')}</th>
                <th scope="col">{t('members.principal')}</th>
                <th scope="col">{t('members.action')}</th>
                <th scope="col">{t('members.outcome')}</th>
              </tr>
            </thead>
            <tbody>
              {s.audit.map((a, i) => (
                <tr key={`${a.time}-${i}`}>
                  <td>{formatDate(a.time, true)}</td>
                  <td>{a.principal}</td>
                  <td>
                    <code>{a.action}</code>
                  </td>
                  <td className={a.outcome >= 400 ? 'members-failed' : undefined}>{a.outcome}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
