// Errors of API calls, with the server's own message.
import { t } from '../i18n';

export class ApiError extends Error {
  readonly status: number;
  readonly body: unknown;

  constructor(status: number, message: string, body: unknown) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
  }

  get isUnauthorized(): boolean {
    return this.status === 401;
  }

  /** 403 with "API Key" in the message: the server wants an X-API-Key. */
  get needsApiKey(): boolean {
    return this.status === 403 && /api key/i.test(this.message);
  }

  get isConflict(): boolean {
    return this.status === 409;
  }
}

/** The request did not reach the server, or its answer was not readable. */
export class NetworkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NetworkError';
  }
}

/** The message of a FastAPI-style error body: `{detail: "…"}`, `{detail: [{msg, loc}]}`, `{message}`. */
export function messageOf(body: unknown, fallback: string): string {
  if (typeof body === 'string' && body.trim() !== '') return body.trim();
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    const detail = b.detail;
    if (typeof detail === 'string') return detail;
    if (Array.isArray(detail)) {
      const parts = detail
        .map((d) => {
          if (!d || typeof d !== 'object') return String(d);
          const item = d as Record<string, unknown>;
          const loc = Array.isArray(item.loc) ? item.loc.filter((x) => x !== 'body').join('.') : '';
          const msg = typeof item.msg === 'string' ? item.msg : JSON.stringify(item);
          return loc ? `${loc}: ${msg}` : msg;
        })
        .filter(Boolean);
      if (parts.length > 0) return parts.join('; ');
    }
    if (typeof b.message === 'string' && b.message !== '') return b.message;
    if (typeof b.error === 'string' && b.error !== '') return b.error;
  }
  return fallback;
}

/** A human-readable text for any thrown value. */
export function describeError(e: unknown): string {
  if (e instanceof ApiError) return e.message;
  if (e instanceof NetworkError) return e.message;
  if (e instanceof DOMException && e.name === 'AbortError') return t('errors.stopped');
  if (e instanceof Error) return e.message;
  return String(e);
}

export function isAbort(e: unknown): boolean {
  return (e instanceof DOMException || e instanceof Error) && e.name === 'AbortError';
}
