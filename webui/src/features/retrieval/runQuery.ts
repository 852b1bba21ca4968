// Runs one question against the server: /query/stream read line by line, or /query. Every
// change of the answer goes to `update`; the returned message is the final state (done,
// stopped by the signal, or error with the server's message).
import { describeError, isAbort } from '../../api/errors';
import { t } from '../../i18n';
import { readNdjson } from '../../api/ndjson';
import type { QueryRequest, QueryResponse, StreamLine } from '../../api/types';
import type { AssistantMessage } from './model';
import { applyLine, applyResponse, finish } from './stream';

export interface QueryServer {
  query(req: QueryRequest, signal?: AbortSignal): Promise<QueryResponse>;
  queryStream(req: QueryRequest, signal?: AbortSignal): Promise<Response>;
}

export async function runQuery(
  server: QueryServer,
  start: AssistantMessage,
  signal: AbortSignal,
  update: (m: AssistantMessage) => void,
  now: () => number = Date.now,
): Promise<AssistantMessage> {
  let msg = start;
  try {
    if (start.streamed) {
      const response = await server.queryStream(start.request, signal);
      if (!response.body) throw new Error(t('retrieval.errors.noBody'));
      for await (const line of readNdjson<StreamLine>(response.body, signal)) {
        const next = applyLine(msg, line, now());
        if (next !== msg) {
          msg = next;
          update(msg);
        }
      }
    } else {
      const body = await server.query(start.request, signal);
      if (signal.aborted) throw new DOMException('Stopped', 'AbortError');
      msg = applyResponse(msg, body);
    }
    msg = finish(msg, { kind: 'done' }, now());
  } catch (e) {
    msg = isAbort(e) || signal.aborted
      ? finish(msg, { kind: 'stopped' }, now())
      : finish(msg, { kind: 'error', message: describeError(e) }, now());
  }
  update(msg);
  return msg;
}
