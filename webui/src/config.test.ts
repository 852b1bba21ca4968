import { describe, expect, it } from 'vitest';
import { normalisePrefix, readRuntimeConfig } from './config';

describe('runtime config', () => {
  it('normalises the API prefix', () => {
    expect(normalisePrefix(undefined)).toBe('');
    expect(normalisePrefix('/')).toBe('');
    expect(normalisePrefix('lightrag/')).toBe('/lightrag');
    expect(normalisePrefix(' /a/b// ')).toBe('/a/b');
  });

  it('fills defaults', () => {
    expect(readRuntimeConfig(undefined)).toEqual({
      apiPrefix: '',
      webuiPrefix: '/webui/',
      title: 'LightRAG',
      description: 'Simple and Fast Graph Based RAG System',
    });
    expect(readRuntimeConfig({ apiPrefix: '/kb', title: 'Team KB' })).toMatchObject({
      apiPrefix: '/kb',
      webuiPrefix: '/kb/webui/',
      title: 'Team KB',
    });
  });
});
