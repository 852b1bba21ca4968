import { describe, expect, it } from 'vitest';
import { memoryStorage } from '../../lib/storage';
import { boundHistory, historyKey, loadHistory, MAX_MESSAGES, saveHistory } from './history';
import type { AssistantMessage, Message, UserMessage } from './model';

const q = (i: number): UserMessage => ({ id: `q${i}`, role: 'user', text: `question ${i}`, mode: 'mix', at: i });
const a = (i: number, patch: Partial<AssistantMessage> = {}): AssistantMessage => ({
  id: `a${i}`,
  role: 'assistant',
  text: `answer ${i}`,
  status: 'done',
  references: null,
  trace: null,
  request: { query: `question ${i}` },
  streamed: true,
  kind: 'answer',
  startedAt: i,
  ...patch,
});
const conversation = (pairs: number): Message[] => Array.from({ length: pairs }, (_, i) => [q(i), a(i)]).flat();

describe('history persistence', () => {
  it('keeps each workspace apart and restores what was saved', () => {
    const s = memoryStorage();
    saveHistory(s, 'alpha', conversation(2));
    saveHistory(s, '', conversation(1));
    expect(loadHistory(s, 'alpha')).toHaveLength(4);
    expect(loadHistory(s, '')).toHaveLength(2);
    expect(loadHistory(s, 'beta')).toEqual([]);
    expect(historyKey('')).not.toBe(historyKey('alpha'));
  });
  it('keeps each account apart on servers with accounts', () => {
    const s = memoryStorage();
    saveHistory(s, 'alpha', conversation(2), 'ada');
    expect(loadHistory(s, 'alpha', 'ada')).toHaveLength(4);
    expect(loadHistory(s, 'alpha', 'charles')).toEqual([]);
    expect(loadHistory(s, 'alpha')).toEqual([]);
    expect(historyKey('alpha', 'a@b')).not.toBe(historyKey('b@alpha', 'a'));
    saveHistory(s, 'alpha', [], 'ada');
    expect(loadHistory(s, 'alpha', 'ada')).toEqual([]);
  });
  it('keeps only the last MAX_MESSAGES, starting with a question', () => {
    const kept = boundHistory([a(-1), ...conversation(80)]);
    expect(kept).toHaveLength(MAX_MESSAGES);
    expect(kept[0]?.id).toBe('q30');
    expect(boundHistory([...conversation(3), q(9)], 6)[0]?.role).toBe('user');
  });
  it('stays within the size budget: first drops chunk texts of old answers, then old messages', () => {
    const big = 'x'.repeat(2000);
    const msgs: Message[] = [
      q(0), a(0, { references: [{ reference_id: '1', file_path: 'f', content: [big] }] }),
      q(1), a(1, { text: 'short' }),
    ];
    const kept = boundHistory(msgs, 100, 1500);
    expect(kept).toHaveLength(4);
    const first = kept[1] as AssistantMessage;
    expect(first.references?.[0]).toEqual({ reference_id: '1', file_path: 'f' });
    const tight = boundHistory(conversation(50), 100, 2000);
    expect(JSON.stringify(tight).length).toBeLessThanOrEqual(2000);
    expect(tight.at(-1)?.id).toBe('a49');
    expect(tight[0]?.role).toBe('user');
  });
  it('does not store the records of a trace', () => {
    const trace = { entities: [], relationships: [], chunks: [], usage: {}, timings_ms: {}, data: { entities: [] } };
    const kept = boundHistory([q(0), a(0, { trace })]);
    expect((kept[1] as AssistantMessage).trace).toEqual({ entities: [], relationships: [], chunks: [], usage: {}, timings_ms: {} });
  });
  it('restores an unfinished answer as stopped and skips junk', () => {
    const s = memoryStorage();
    s.setItem(historyKey('w'), JSON.stringify([q(0), a(0, { status: 'streaming', text: 'part' }), { nope: 1 }, 'x']));
    const loaded = loadHistory(s, 'w');
    expect(loaded).toHaveLength(2);
    expect(loaded[1]).toMatchObject({ status: 'stopped', text: 'part' });
    s.setItem(historyKey('bad'), '{not json');
    expect(loadHistory(s, 'bad')).toEqual([]);
  });
  it('clearing removes the key', () => {
    const s = memoryStorage();
    saveHistory(s, 'w', conversation(1));
    saveHistory(s, 'w', []);
    expect(s.getItem(historyKey('w'))).toBeNull();
  });
});
