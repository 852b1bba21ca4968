// Reads an NDJSON byte stream (one JSON value per line), as /query/stream and the Ollama routes
// send it. Lines may be split anywhere across chunks, including inside a multi-byte UTF-8
// character; blank lines are skipped; a last line without a newline still counts.
import { t } from '../i18n';

export class NdjsonError extends Error {
  readonly line: string;
  constructor(line: string, cause: unknown) {
    super(t('errors.badLine', { line: line.slice(0, 120) }));
    this.name = 'NdjsonError';
    this.line = line;
    this.cause = cause;
  }
}

export async function* readNdjson<T = unknown>(
  stream: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
): AsyncGenerator<T, void, undefined> {
  const reader = stream.getReader();
  const decoder = new TextDecoder('utf-8');
  let buffer = '';
  const onAbort = () => {
    reader.cancel().catch(() => undefined);
  };
  signal?.addEventListener('abort', onAbort);
  try {
    for (;;) {
      if (signal?.aborted) throw new DOMException('The stream was stopped', 'AbortError');
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let newline = buffer.indexOf('\n');
      while (newline >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        const parsed = parseLine<T>(line);
        if (parsed !== undefined) yield parsed.value;
        newline = buffer.indexOf('\n');
      }
    }
    if (signal?.aborted) throw new DOMException('The stream was stopped', 'AbortError');
    buffer += decoder.decode();
    const last = parseLine<T>(buffer);
    if (last !== undefined) yield last.value;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    reader.releaseLock();
  }
}

function parseLine<T>(raw: string): { value: T } | undefined {
  const line = raw.trim();
  if (line === '') return undefined;
  try {
    return { value: JSON.parse(line) as T };
  } catch (e) {
    throw new NdjsonError(line, e);
  }
}
