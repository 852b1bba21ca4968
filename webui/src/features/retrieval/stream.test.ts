import { describe, expect, it } from 'vitest';
import type { QueryRequest, QueryTrace, StreamLine } from '../../api/types';
import type { AssistantMessage } from './model';
import { runQuery, type QueryServer } from './runQuery';
import { applyLine, applyResponse, finish, restart } from './stream';

const trace: QueryTrace = {
  entities: [{ entity_name: 'Alice', score: 0.9, origin: 'entity_vector', rank: 1 }],
  relationships: [],
  chunks: [],
  usage: { answer: { calls: 1, cache_hits: 0, tokens_in: 100, tokens_out: 20 } },
  timings_ms: { total: 120 },
};

function start(patch: Partial<AssistantMessage> = {}): AssistantMessage {
  return {
    id: 'a1',
    role: 'assistant',
    text: '',
    status: 'pending',
    references: null,
    trace: null,
    request: { query: 'Who is Alice?', mode: 'mix' },
    streamed: true,
    kind: 'answer',
    startedAt: 1,
    ...patch,
  };
}

function fold(lines: StreamLine[]): AssistantMessage {
  return lines.reduce(applyLine, start());
}

describe('applyLine', () => {
  it('takes references, then response deltas, then the trace', () => {
    const m = fold([
      { references: [{ reference_id: '1', file_path: 'a.txt' }] },
      { response: 'Alice ' },
      { response: 'works at Acme.' },
      { trace },
    ]);
    expect(m.references).toEqual([{ reference_id: '1', file_path: 'a.txt' }]);
    expect(m.text).toBe('Alice works at Acme.');
    expect(m.trace).toBe(trace);
    expect(m.status).toBe('streaming');
  });
  it('takes a single non-streamed line with several keys', () => {
    const m = fold([{ response: 'Whole answer', references: [{ reference_id: '1', file_path: 'b.md' }], trace }]);
    expect(m.text).toBe('Whole answer');
    expect(m.references).toHaveLength(1);
    expect(m.trace).toBe(trace);
  });
  it('an error keeps the partial answer and ends the message', () => {
    const m = fold([{ response: 'Part' }, { error: 'LLM timed out' }, { response: ' more' }]);
    expect(m.status).toBe('error');
    expect(m.error).toBe('LLM timed out');
    expect(m.text).toBe('Part');
  });
  it('ignores unknown or empty lines', () => {
    const s = start();
    expect(applyLine(s, {} as StreamLine)).toBe(s);
    expect(applyLine(s, null)).toBe(s);
    expect(applyLine(s, { references: null } as unknown as StreamLine)).toBe(s);
  });
  it('a null references key of the fallback line is no references', () => {
    const m = fold([{ response: 'No relevant context found for the query.', references: null } as unknown as StreamLine]);
    expect(m.references).toBeNull();
    expect(m.text).toContain('No relevant');
  });
});

describe('applyResponse / finish / restart', () => {
  it('takes the /query JSON', () => {
    const m = applyResponse(start({ streamed: false }), {
      response: 'Answer',
      references: [{ reference_id: '1', file_path: 'x' }],
      trace,
    });
    expect(m).toMatchObject({ text: 'Answer', references: [{ reference_id: '1', file_path: 'x' }], trace });
  });
  it('finishes as done, stopped or error, and an error stays an error', () => {
    expect(finish(start(), { kind: 'done' }, 5)).toMatchObject({ status: 'done', finishedAt: 5 });
    expect(finish(start({ text: 'part' }), { kind: 'stopped' }, 5)).toMatchObject({ status: 'stopped', text: 'part' });
    expect(finish(start(), { kind: 'error', message: 'x' }, 5)).toMatchObject({ status: 'error', error: 'x' });
    const failed = start({ status: 'error', error: 'from stream' });
    expect(finish(failed, { kind: 'done' }, 5)).toMatchObject({ status: 'error', error: 'from stream' });
  });
  it('restart clears the previous outcome', () => {
    const m = restart(start({ status: 'error', error: 'x', text: 'y', trace, references: [] }), 9);
    expect(m).toMatchObject({ status: 'pending', text: '', trace: null, references: null, startedAt: 9 });
    expect(m.error).toBeUndefined();
  });
});

/** A Response whose body sends `chunks` one by one, waiting for `gate` before each when given. */
function ndjsonResponse(chunks: string[], gate?: () => Promise<void>): Response {
  const enc = new TextEncoder();
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (gate) await gate();
      const c = chunks[i++];
      if (c === undefined) controller.close();
      else controller.enqueue(enc.encode(c));
    },
  });
  return new Response(body, { headers: { 'Content-Type': 'application/x-ndjson' } });
}

function fakeServer(over: Partial<QueryServer>): QueryServer & { requests: QueryRequest[] } {
  const requests: QueryRequest[] = [];
  return {
    requests,
    query: over.query ?? (async () => ({ response: '' })),
    queryStream: async (req, signal) => {
      requests.push(req);
      return over.queryStream ? over.queryStream(req, signal) : ndjsonResponse([]);
    },
  };
}

describe('runQuery', () => {
  it('streams, reporting every change, and ends done', async () => {
    const server = fakeServer({
      queryStream: async () =>
        ndjsonResponse([
          '{"references":[{"reference_id":"1","file_path":"a.txt"}]}\n{"respon',
          'se":"Alice "}\n',
          '{"response":"works."}\n',
          `${JSON.stringify({ trace })}\n`,
        ]),
    });
    const seen: AssistantMessage[] = [];
    const end = await runQuery(server, start(), new AbortController().signal, (m) => seen.push(m), () => 42);
    expect(end).toMatchObject({ status: 'done', text: 'Alice works.', finishedAt: 42, trace });
    expect(seen.map((m) => m.text)).toEqual(['', 'Alice ', 'Alice works.', 'Alice works.', 'Alice works.']);
    expect(seen.at(-1)).toBe(end);
  });
  it('keeps the partial answer when stopped', async () => {
    const controller = new AbortController();
    let n = 0;
    const server = fakeServer({
      queryStream: async () =>
        ndjsonResponse(['{"response":"Part"}\n', '{"response":" two"}\n', '{"response":" three"}\n'], async () => {
          if (++n === 3) controller.abort();
        }),
    });
    const end = await runQuery(server, start(), controller.signal, () => undefined);
    expect(end.status).toBe('stopped');
    expect(end.text).toBe('Part two');
  });
  it('reports the server error message', async () => {
    const server = fakeServer({
      queryStream: async () => {
        throw new Error('query: String should have at least 3 characters');
      },
    });
    const end = await runQuery(server, start(), new AbortController().signal, () => undefined);
    expect(end).toMatchObject({ status: 'error', error: 'query: String should have at least 3 characters' });
  });
  it('reports an error line', async () => {
    const server = fakeServer({ queryStream: async () => ndjsonResponse(['{"response":"a"}\n{"error":"boom"}\n']) });
    const end = await runQuery(server, start(), new AbortController().signal, () => undefined);
    expect(end).toMatchObject({ status: 'error', error: 'boom', text: 'a' });
  });
  it('uses /query when not streaming', async () => {
    const server = fakeServer({ query: async () => ({ response: 'Full', references: null, trace }) });
    const end = await runQuery(server, start({ streamed: false }), new AbortController().signal, () => undefined);
    expect(end).toMatchObject({ status: 'done', text: 'Full', trace, references: null });
    expect(server.requests).toHaveLength(0);
  });
});

describe('time to first token', () => {
  it('is the arrival of the first non-empty answer text, kept for the later deltas', () => {
    let m = applyLine(start({ startedAt: 1000 }), { references: [] }, 1100);
    expect(m.firstTokenAt).toBeUndefined();
    m = applyLine(m, { response: '' }, 1200);
    expect(m.firstTokenAt).toBeUndefined();
    m = applyLine(m, { response: 'Alice' }, 1350);
    m = applyLine(m, { response: ' is' }, 1500);
    expect(m.firstTokenAt).toBe(1350);
    expect(restart(m, 2000).firstTokenAt).toBeUndefined();
  });
});
