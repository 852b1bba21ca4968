import { describe, expect, it } from 'vitest';
import type { AssistantMessage, Message, UserMessage } from './model';
import { buildRequest, dataRequest, parseModePrefix, selectHistory, sendsHistory, splitKeywords } from './request';
import { DEFAULT_SETTINGS, type QuerySettings } from './settings';

const settings = (patch: Partial<QuerySettings> = {}): QuerySettings => ({ ...DEFAULT_SETTINGS, ...patch });

describe('parseModePrefix', () => {
  it('leaves text without a prefix alone', () => {
    expect(parseModePrefix('  Who is Alice?  ')).toEqual({ ok: true, mode: null, query: 'Who is Alice?' });
  });
  it('reads every known mode, case-insensitively, across spaces and newlines', () => {
    for (const m of ['auto', 'local', 'global', 'hybrid', 'naive', 'mix', 'ppr', 'bypass']) {
      expect(parseModePrefix(`/${m} Who is Alice?`)).toEqual({ ok: true, mode: m, query: 'Who is Alice?' });
    }
    expect(parseModePrefix('/LOCAL\nWho\nis Alice?')).toEqual({ ok: true, mode: 'local', query: 'Who\nis Alice?' });
  });
  it('refuses an unknown prefix with the list of modes', () => {
    const r = parseModePrefix('/fast who is Alice?');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toContain('"/fast"');
      expect(r.error).toContain('/bypass');
    }
    expect(parseModePrefix('/ who').ok).toBe(false);
  });
  it('needs a question after the prefix', () => {
    const r = parseModePrefix('/local   ');
    expect(r).toEqual({ ok: false, error: 'Type a question after /local.' });
  });
  it('only looks at the start', () => {
    expect(parseModePrefix('what is /local?')).toEqual({ ok: true, mode: null, query: 'what is /local?' });
  });
});

describe('splitKeywords', () => {
  it('splits on commas, trims, drops empties and repeats', () => {
    expect(splitKeywords(' a, b ,, c,a ,')).toEqual(['a', 'b', 'c']);
    expect(splitKeywords('')).toEqual([]);
    expect(splitKeywords('one\ntwo')).toEqual(['one', 'two']);
  });
});

function q(text: string): UserMessage {
  return { id: `q-${text}`, role: 'user', text, mode: 'mix', at: 0 };
}
function a(text: string, patch: Partial<AssistantMessage> = {}): AssistantMessage {
  return {
    id: `a-${text}`,
    role: 'assistant',
    text,
    status: 'done',
    references: null,
    trace: null,
    request: { query: 'x' },
    streamed: true,
    kind: 'answer',
    startedAt: 0,
    ...patch,
  };
}

describe('selectHistory', () => {
  const conv: Message[] = [
    q('one'), a('A1'),
    q('two'), a('<think>hmm</think>A2'),
    q('three'), a('', { status: 'error', error: 'boom' }),
    q('four'), a('partial', { status: 'stopped' }),
    q('five'), a('ctx', { kind: 'context' }),
    q('six'), a('', { status: 'stopped' }),
  ];
  it('takes the last N usable pairs, oldest first, without reasoning', () => {
    expect(selectHistory(conv, 2)).toEqual([
      { role: 'user', content: 'two' },
      { role: 'assistant', content: 'A2' },
      { role: 'user', content: 'four' },
      { role: 'assistant', content: 'partial' },
    ]);
  });
  it('gives all usable pairs when N is large, none when 0', () => {
    expect(selectHistory(conv, 10)).toHaveLength(6);
    expect(selectHistory(conv, 0)).toEqual([]);
  });
  it('skips a question still waiting for its answer', () => {
    expect(selectHistory([q('one'), a('A1'), q('two')], 3)).toHaveLength(2);
  });
});

describe('sendsHistory', () => {
  it('only in bypass mode by default (as LightRAG), in every mode when asked', () => {
    expect(sendsHistory(settings(), 'bypass')).toBe(true);
    expect(sendsHistory(settings(), 'mix')).toBe(false);
    expect(sendsHistory(settings({ historyInAllModes: true }), 'local')).toBe(true);
  });
});

describe('buildRequest', () => {
  it('sends only the query, the mode and the trace flag with default settings', () => {
    expect(buildRequest(settings(), 'Who is Alice?', 'mix', [])).toEqual({
      query: 'Who is Alice?',
      mode: 'mix',
      include_trace: true,
    });
  });
  it('sends what differs from the defaults', () => {
    const req = buildRequest(
      settings({
        responseType: 'Bullet Points',
        topK: '10',
        chunkTopK: '20',
        maxEntityTokens: '5000',
        maxRelationTokens: '8000',
        maxTotalTokens: '12000',
        enableRerank: false,
        onlyNeedContext: true,
        onlyNeedPrompt: true,
        includeReferences: true,
        includeChunkContent: true,
        userPrompt: '  Answer in French. ',
        hlKeywords: 'org, company',
        llKeywords: 'Alice,, Acme ',
      }),
      'Who?!',
      'local',
      [{ role: 'user', content: 'hi' }],
    );
    expect(req).toEqual({
      query: 'Who?!',
      mode: 'local',
      response_type: 'Bullet Points',
      top_k: 10,
      max_entity_tokens: 5000,
      max_total_tokens: 12000,
      enable_rerank: false,
      only_need_context: true,
      only_need_prompt: true,
      include_chunk_content: true,
      user_prompt: 'Answer in French.',
      hl_keywords: ['org', 'company'],
      ll_keywords: ['Alice', 'Acme'],
      conversation_history: [{ role: 'user', content: 'hi' }],
      include_trace: true,
    });
  });
  it('turns references off explicitly (the API default is on) and then never asks for chunk texts', () => {
    const req = buildRequest(settings({ includeReferences: false, includeChunkContent: true }), 'abc', 'naive', []);
    expect(req.include_references).toBe(false);
    expect(req.include_chunk_content).toBeUndefined();
  });
  it('leaves a blank response type and blank keywords out', () => {
    const req = buildRequest(settings({ responseType: '  ', hlKeywords: ' , ', userPrompt: ' ' }), 'abc', 'mix', []);
    expect(req).toEqual({ query: 'abc', mode: 'mix', include_trace: true });
  });
});

describe('dataRequest', () => {
  it('keeps the retrieval parameters and drops the answer ones', () => {
    expect(
      dataRequest({
        query: 'q?',
        mode: 'local',
        top_k: 5,
        hl_keywords: ['a'],
        conversation_history: [{ role: 'user', content: 'x' }],
        only_need_context: true,
        user_prompt: 'p',
        response_type: 'Bullet Points',
        stream: true,
        include_trace: true,
      }),
    ).toEqual({ query: 'q?', mode: 'local', top_k: 5, hl_keywords: ['a'], include_trace: true });
  });
});
