import { describe, expect, it } from 'vitest';
import { memoryStorage } from '../../lib/storage';
import {
  DEFAULT_SETTINGS,
  firstError,
  loadSettings,
  parsePrice,
  parseWhole,
  resetSettings,
  saveSettings,
  SETTINGS_KEY,
  validateSettings,
} from './settings';

describe('settings', () => {
  it('has the server\'s defaults (LightRAG\'s budgets, the auto mode)', () => {
    expect(DEFAULT_SETTINGS).toMatchObject({
      mode: 'auto',
      topK: '40',
      chunkTopK: '20',
      maxEntityTokens: '6000',
      maxRelationTokens: '8000',
      maxTotalTokens: '30000',
      stream: true,
      includeReferences: true,
      enableRerank: true,
    });
    expect(validateSettings(DEFAULT_SETTINGS)).toEqual({});
  });
  it('parses whole numbers and prices strictly', () => {
    expect(parseWhole(' 12 ', 1)).toBe(12);
    expect(parseWhole('0', 1)).toBeNull();
    expect(parseWhole('0', 0)).toBe(0);
    for (const bad of ['', '1.5', '-3', 'abc', '1e3']) expect(parseWhole(bad, 1)).toBeNull();
    expect(parsePrice('0.15')).toBe(0.15);
    expect(parsePrice('2,5')).toBe(2.5);
    expect(parsePrice('.5')).toBe(0.5);
    expect(parsePrice('')).toBeNull();
    expect(parsePrice('-1')).toBeNull();
  });
  it('reports invalid fields inline', () => {
    const errors = validateSettings({ ...DEFAULT_SETTINGS, topK: '0', historyTurns: '-1', priceIn: 'x', priceOut: '' });
    expect(Object.keys(errors).sort()).toEqual(['historyTurns', 'priceIn', 'topK']);
    expect(firstError(errors)).toBe('Top K: a whole number ≥ 1.');
    expect(firstError({})).toBeNull();
  });
  it('persists, and ignores stored fields of the wrong type or unknown mode', () => {
    const s = memoryStorage();
    saveSettings(s, { ...DEFAULT_SETTINGS, mode: 'local', topK: '7' });
    expect(loadSettings(s)).toMatchObject({ mode: 'local', topK: '7' });
    s.setItem(SETTINGS_KEY, JSON.stringify({ mode: 'turbo', topK: 7, stream: false, extra: 1 }));
    const loaded = loadSettings(s);
    expect(loaded).toMatchObject({ mode: 'auto', topK: '40', stream: false });
    expect('extra' in loaded).toBe(false);
    s.setItem(SETTINGS_KEY, 'garbage');
    expect(loadSettings(s)).toEqual(DEFAULT_SETTINGS);
  });
  it('reset keeps the prices', () => {
    const r = resetSettings({ ...DEFAULT_SETTINGS, topK: '3', mode: 'naive', priceIn: '1', priceOut: '2' });
    expect(r).toEqual({ ...DEFAULT_SETTINGS, priceIn: '1', priceOut: '2' });
  });
});
