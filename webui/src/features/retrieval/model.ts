// The conversation's messages: what the user asked and what the server answered.
import type { QueryMode, QueryRequest, QueryTrace, Reference } from '../../api/types';

/** What an answer holds: a real answer, or the retrieved context / the prompt (only_need_*). */
export type AnswerKind = 'answer' | 'context' | 'prompt';

/**
 * pending: sent, nothing received yet; streaming: receiving; done: complete; stopped: the user
 * stopped it (the partial text is kept); error: the server or the network failed.
 */
export type AnswerStatus = 'pending' | 'streaming' | 'done' | 'stopped' | 'error';

export interface UserMessage {
  id: string;
  role: 'user';
  /** The question without its `/mode` prefix. */
  text: string;
  mode: QueryMode;
  at: number;
}

export interface AssistantMessage {
  id: string;
  role: 'assistant';
  /** The raw answer text as received (may contain `<think>` blocks). */
  text: string;
  status: AnswerStatus;
  error?: string;
  references: Reference[] | null;
  /** ours: the retrieval trace; null when the server did not send one (yet). */
  trace: QueryTrace | null;
  /** The request that produced this answer (for retry and for the "why" panel). */
  request: QueryRequest;
  /** Whether it went through /query/stream (true) or /query. */
  streamed: boolean;
  kind: AnswerKind;
  startedAt: number;
  /** When the first answer text arrived (streamed answers): time to first token = firstTokenAt - startedAt. */
  firstTokenAt?: number;
  finishedAt?: number;
}

export type Message = UserMessage | AssistantMessage;

export function isBusy(m: Message): boolean {
  return m.role === 'assistant' && (m.status === 'pending' || m.status === 'streaming');
}

export function answerKind(req: QueryRequest): AnswerKind {
  if (req.only_need_prompt) return 'prompt';
  if (req.only_need_context) return 'context';
  return 'answer';
}

let counter = 0;

/** A unique id for a message (time-based, unique within the page). */
export function newId(now: number = Date.now()): string {
  counter = (counter + 1) % 1_000_000;
  return `${now.toString(36)}-${counter.toString(36)}-${Math.random().toString(36).slice(2, 7)}`;
}
