import { describe, expect, it } from 'vitest';
import { fakeJwt } from '../testing/fakeJwt';
import { isExpired, readClaims } from './jwt';

describe('readClaims', () => {
  it('reads sub, role, exp and the auth mode', () => {
    const c = readClaims(fakeJwt({ sub: 'admin', role: 'user', exp: 2000, metadata: { auth_mode: 'enabled' } }));
    expect(c).toEqual({ sub: 'admin', role: 'user', exp: 2000, authMode: 'enabled' });
  });

  it('decodes UTF-8 user names and base64url characters', () => {
    const c = readClaims(fakeJwt({ sub: 'Zoë ~~~???>>>', role: 'user' }));
    expect(c?.sub).toBe('Zoë ~~~???>>>');
  });

  it('returns null for garbage', () => {
    expect(readClaims('nope')).toBeNull();
    expect(readClaims('a.%%%.c')).toBeNull();
  });

  it('tells expiry', () => {
    const c = readClaims(fakeJwt({ sub: 'a', exp: 100 }));
    expect(c && isExpired(c, 99)).toBe(false);
    expect(c && isExpired(c, 100)).toBe(true);
    const forever = readClaims(fakeJwt({ sub: 'a' }));
    expect(forever && isExpired(forever, 1e12)).toBe(false);
  });
});
