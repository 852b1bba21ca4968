import { describe, expect, it } from 'vitest';
import { NdjsonError, readNdjson } from './ndjson';

function streamOf(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(typeof c === 'string' ? enc.encode(c) : c);
      controller.close();
    },
  });
}

async function collect<T>(gen: AsyncGenerator<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const v of gen) out.push(v);
  return out;
}

describe('readNdjson', () => {
  it('reads one value per line across arbitrary chunk boundaries', async () => {
    const text = '{"references":[]}\n{"response":"Hel"}\n{"response":"lo"}\n';
    for (let cut = 1; cut < text.length; cut++) {
      const values = await collect(readNdjson(streamOf([text.slice(0, cut), text.slice(cut)])));
      expect(values).toEqual([{ references: [] }, { response: 'Hel' }, { response: 'lo' }]);
    }
  });

  it('keeps a multi-byte character that is split between chunks', async () => {
    const bytes = new TextEncoder().encode('{"response":"é→😀"}\n');
    // cut inside the 4-byte emoji
    const cut = bytes.length - 4;
    const values = await collect(readNdjson(streamOf([bytes.slice(0, cut), bytes.slice(cut)])));
    expect(values).toEqual([{ response: 'é→😀' }]);
  });

  it('skips blank lines and reads a last line without a newline', async () => {
    const values = await collect(readNdjson(streamOf(['\n{"a":1}\r\n\n', '  \n{"b":2}'])));
    expect(values).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it('throws NdjsonError on a line that is not JSON, after the good ones', async () => {
    const seen: unknown[] = [];
    await expect(async () => {
      for await (const v of readNdjson(streamOf(['{"a":1}\nnot json\n{"b":2}\n']))) seen.push(v);
    }).rejects.toBeInstanceOf(NdjsonError);
    expect(seen).toEqual([{ a: 1 }]);
  });

  it('stops with an AbortError when the signal fires', async () => {
    const enc = new TextEncoder();
    let pull = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pull += 1;
        controller.enqueue(enc.encode(`{"n":${pull}}\n`));
      },
    });
    const abort = new AbortController();
    const seen: unknown[] = [];
    await expect(async () => {
      for await (const v of readNdjson(stream, abort.signal)) {
        seen.push(v);
        if (seen.length === 2) abort.abort();
      }
    }).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toHaveLength(2);
  });
});
