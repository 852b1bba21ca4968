// How an answer message takes in what the server sends: the NDJSON lines of /query/stream
// (`{references}`, `{response}` deltas, `{error}`, ours `{trace}`; a non-streamed result is one
// line with several keys) and the JSON of /query. Pure functions: message in, message out.
import type { QueryResponse, QueryTrace, Reference, StreamLine } from '../../api/types';
import { t } from '../../i18n';
import type { AssistantMessage } from './model';

function isTrace(v: unknown): v is QueryTrace {
  return Boolean(v) && typeof v === 'object' && !Array.isArray(v);
}

/** Takes in one line (`at`: when it arrived, for the time to first token). Lines after an error are ignored (the server stops after one anyway). */
export function applyLine(msg: AssistantMessage, line: StreamLine | null | undefined, at?: number): AssistantMessage {
  if (!line || typeof line !== 'object' || msg.status === 'error') return msg;
  let next = msg;
  if (Array.isArray(line.references)) next = { ...next, references: line.references as Reference[] };
  if (typeof line.response === 'string') {
    const first = next.firstTokenAt ?? (line.response !== '' && at !== undefined ? at : undefined);
    next = { ...next, text: next.text + line.response, status: 'streaming', firstTokenAt: first };
  }
  if (isTrace(line.trace)) next = { ...next, trace: line.trace };
  if (typeof line.error === 'string') {
    next = { ...next, status: 'error', error: line.error || t('retrieval.errors.answerFailed') };
  }
  if (next.status === 'pending' && next !== msg) next = { ...next, status: 'streaming' };
  return next;
}

/** Takes in the answer of /query. */
export function applyResponse(msg: AssistantMessage, body: QueryResponse): AssistantMessage {
  return {
    ...msg,
    text: typeof body?.response === 'string' ? body.response : '',
    references: Array.isArray(body?.references) ? body.references : null,
    trace: isTrace(body?.trace) ? body.trace : msg.trace,
  };
}

export type Outcome = { kind: 'done' } | { kind: 'stopped' } | { kind: 'error'; message: string };

/** The end of a run: complete, stopped by the user (the partial text stays), or failed. */
export function finish(msg: AssistantMessage, outcome: Outcome, at: number): AssistantMessage {
  if (msg.status === 'error') return { ...msg, finishedAt: at };
  switch (outcome.kind) {
    case 'done':
      return { ...msg, status: 'done', finishedAt: at };
    case 'stopped':
      return { ...msg, status: 'stopped', finishedAt: at };
    case 'error':
      return { ...msg, status: 'error', error: outcome.message, finishedAt: at };
  }
}

/** The message as it is before a (re)run of its request. */
export function restart(msg: AssistantMessage, at: number): AssistantMessage {
  return {
    ...msg,
    text: '',
    status: 'pending',
    error: undefined,
    references: null,
    trace: null,
    startedAt: at,
    firstTokenAt: undefined,
    finishedAt: undefined,
  };
}
