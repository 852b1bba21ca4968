import { describe, expect, it } from 'vitest';
import { ApiError, messageOf } from './errors';

describe('messageOf', () => {
  it('reads FastAPI detail strings and validation lists', () => {
    expect(messageOf({ detail: 'Invalid API Key' }, 'x')).toBe('Invalid API Key');
    expect(
      messageOf({ detail: [{ loc: ['body', 'query'], msg: 'too short' }, { loc: ['body', 'top_k'], msg: 'must be ≥ 1' }] }, 'x'),
    ).toBe('query: too short; top_k: must be ≥ 1');
  });

  it('reads message and error fields, and plain text', () => {
    expect(messageOf({ status: 'failure', message: 'Validation error: q' }, 'x')).toBe('Validation error: q');
    expect(messageOf({ error: 'boom' }, 'x')).toBe('boom');
    expect(messageOf('  Bad gateway ', 'x')).toBe('Bad gateway');
    expect(messageOf(undefined, '500 Internal Server Error')).toBe('500 Internal Server Error');
  });
});

describe('ApiError', () => {
  it('knows when the server wants an API key', () => {
    expect(new ApiError(403, 'API Key required', null).needsApiKey).toBe(true);
    expect(new ApiError(403, 'Invalid API Key', null).needsApiKey).toBe(true);
    expect(new ApiError(403, 'Forbidden', null).needsApiKey).toBe(false);
    expect(new ApiError(401, 'Token expired', null).isUnauthorized).toBe(true);
  });
});
