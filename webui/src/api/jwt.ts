// Reads (never verifies) the claims of the server's JWTs: who is logged in, as what, until when.

export interface TokenClaims {
  sub: string;
  role: 'user' | 'guest' | string;
  exp: number | null;
  authMode: string | null;
}

function base64UrlDecode(part: string): string {
  const b64 = part.replace(/-/g, '+').replace(/_/g, '/');
  const padded = b64 + '='.repeat((4 - (b64.length % 4)) % 4);
  const binary = atob(padded);
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

export function readClaims(token: string): TokenClaims | null {
  const parts = token.split('.');
  if (parts.length < 2 || !parts[1]) return null;
  try {
    const payload = JSON.parse(base64UrlDecode(parts[1])) as Record<string, unknown>;
    const metadata = (payload.metadata ?? {}) as Record<string, unknown>;
    return {
      sub: typeof payload.sub === 'string' ? payload.sub : '',
      role: typeof payload.role === 'string' ? payload.role : 'user',
      exp: typeof payload.exp === 'number' ? payload.exp : null,
      authMode: typeof metadata.auth_mode === 'string' ? metadata.auth_mode : null,
    };
  } catch {
    return null;
  }
}

/** Whether the token has expired at `nowSeconds` (tokens without `exp` never do). */
export function isExpired(claims: TokenClaims, nowSeconds: number): boolean {
  return claims.exp !== null && claims.exp <= nowSeconds;
}
