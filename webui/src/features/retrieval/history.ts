// The conversation of each workspace, kept in localStorage: bounded in messages and in size
// (localStorage holds a few MB per site), restored with unfinished answers marked as stopped.
import type { KeyValueStorage } from '../../lib/storage';
import type { AssistantMessage, Message } from './model';

export const MAX_MESSAGES = 100;
/** Characters of JSON kept per workspace (well under the usual 5 MB localStorage quota). */
export const MAX_CHARS = 1_500_000;

/**
 * Where a conversation is kept: per workspace, and per user on servers with accounts (several
 * people may log in on one browser; one does not see the other's questions).
 */
export function historyKey(workspace: string, user: string | null = null): string {
  const who = user ? `${encodeURIComponent(user)}@` : '';
  return `lightrag-rs.retrieval.history.${who}${workspace || '(default)'}`;
}

/** What is kept of a message: no trace records (fetched again when needed). */
function slim(m: Message): Message {
  if (m.role !== 'assistant' || !m.trace?.data) return m;
  const { data: _data, ...trace } = m.trace;
  return { ...m, trace };
}

/** Without the chunk texts of the references (the biggest part of an answer). */
function withoutChunkTexts(m: Message): Message {
  if (m.role !== 'assistant' || !m.references?.some((r) => r.content)) return m;
  return { ...m, references: m.references.map(({ content: _c, ...r }) => r) };
}

/**
 * The messages to store: the last MAX_MESSAGES, never starting with an answer whose question
 * was cut off, and within MAX_CHARS (older messages first lose their chunk texts, then go).
 */
export function boundHistory(messages: Message[], maxMessages = MAX_MESSAGES, maxChars = MAX_CHARS): Message[] {
  let kept = messages.slice(-maxMessages).map(slim);
  while (kept[0]?.role === 'assistant') kept = kept.slice(1);
  let size = JSON.stringify(kept).length;
  for (let i = 0; i < kept.length - 1 && size > maxChars; i++) {
    const m = kept[i];
    if (!m) continue;
    const lighter = withoutChunkTexts(m);
    if (lighter !== m) {
      kept[i] = lighter;
      size = JSON.stringify(kept).length;
    }
  }
  while (kept.length > 1 && size > maxChars) {
    kept = kept.slice(1);
    while (kept[0]?.role === 'assistant') kept = kept.slice(1);
    size = JSON.stringify(kept).length;
  }
  if (size > maxChars) kept = kept.map(withoutChunkTexts);
  return kept;
}

function isMessage(v: unknown): v is Message {
  if (!v || typeof v !== 'object') return false;
  const m = v as Record<string, unknown>;
  if (typeof m.id !== 'string' || typeof m.text !== 'string') return false;
  if (m.role === 'user') return typeof m.mode === 'string';
  if (m.role === 'assistant') {
    return typeof m.status === 'string' && Boolean(m.request) && typeof m.request === 'object';
  }
  return false;
}

/** An answer that was still arriving when the page closed is shown as stopped. */
function settle(m: Message): Message {
  if (m.role !== 'assistant') return m;
  const a: AssistantMessage = {
    ...m,
    references: Array.isArray(m.references) ? m.references : null,
    trace: m.trace && typeof m.trace === 'object' ? m.trace : null,
  };
  if (a.status === 'pending' || a.status === 'streaming') return { ...a, status: 'stopped' };
  return a;
}

export function loadHistory(storage: KeyValueStorage, workspace: string, user: string | null = null): Message[] {
  let raw: unknown;
  try {
    raw = JSON.parse(storage.getItem(historyKey(workspace, user)) ?? '[]');
  } catch {
    return [];
  }
  if (!Array.isArray(raw)) return [];
  return raw.filter(isMessage).map(settle).slice(-MAX_MESSAGES);
}

export function saveHistory(storage: KeyValueStorage, workspace: string, messages: Message[], user: string | null = null): void {
  const key = historyKey(workspace, user);
  if (messages.length === 0) {
    storage.removeItem(key);
    return;
  }
  storage.setItem(key, JSON.stringify(boundHistory(messages)));
}
