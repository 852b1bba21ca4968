// The conversation of the retrieval page: messages (restored from and saved to localStorage per
// workspace), sending a question, stopping, retrying, clearing. While an answer streams, the
// screen is updated at most every STREAM_RENDER_MS.
import { useCallback, useEffect, useRef, useState } from 'react';
import { t } from '../../i18n';
import type { QueryMode } from '../../api/types';
import { server } from '../../app/services';
import { local } from '../../lib/storage';
import { loadHistory, saveHistory } from './history';
import { answerKind, isBusy, newId, type AssistantMessage, type Message, type UserMessage } from './model';
import { buildRequest, MIN_QUERY_LENGTH, parseModePrefix, selectHistory, sendsHistory } from './request';
import { runQuery } from './runQuery';
import { firstError, parseWhole, validateSettings, type QuerySettings } from './settings';
import { restart } from './stream';

export const STREAM_RENDER_MS = 50;

export interface Conversation {
  messages: Message[];
  busy: boolean;
  /** Sends a question; returns an error to show inline, or null when it was sent. */
  send(input: string, settings: QuerySettings): string | null;
  stop(): void;
  retry(answerId: string): void;
  clear(): void;
}

/** `user`: the logged-in account on a server with accounts (each keeps its own conversation), else null. */
export function useConversation(workspace: string, user: string | null): Conversation {
  const [messages, setMessages] = useState<Message[]>(() => loadHistory(local, workspace, user));
  const current = useRef(messages);
  current.current = messages;
  const abort = useRef<AbortController | null>(null);
  const pending = useRef<AssistantMessage | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const busy = messages.some(isBusy);

  // Saved whenever no answer is arriving (each run saves once at its start, too).
  useEffect(() => {
    if (!busy) saveHistory(local, workspace, messages, user);
  }, [busy, messages, workspace, user]);

  // Leaving (workspace switch, logout) stops a running answer.
  useEffect(
    () => () => {
      abort.current?.abort();
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  const replace = useCallback((m: AssistantMessage) => {
    setMessages((list) => list.map((x) => (x.id === m.id ? m : x)));
  }, []);

  const flush = useCallback(() => {
    timer.current = null;
    const m = pending.current;
    pending.current = null;
    if (m) replace(m);
  }, [replace]);

  const run = useCallback(
    (start: AssistantMessage) => {
      const controller = new AbortController();
      abort.current = controller;
      const update = (m: AssistantMessage) => {
        pending.current = m;
        if (m.status === 'done' || m.status === 'stopped' || m.status === 'error') {
          if (timer.current) clearTimeout(timer.current);
          flush();
        } else if (!timer.current) {
          timer.current = setTimeout(flush, STREAM_RENDER_MS);
        }
      };
      void runQuery(server, start, controller.signal, update).finally(() => {
        if (abort.current === controller) abort.current = null;
      });
    },
    [flush],
  );

  const send = useCallback(
    (input: string, settings: QuerySettings): string | null => {
      if (current.current.some(isBusy)) return t('retrieval.errors.wait');
      const parsed = parseModePrefix(input);
      if (!parsed.ok) return parsed.error;
      if (parsed.query.length < MIN_QUERY_LENGTH) return t('retrieval.errors.tooShort', { count: MIN_QUERY_LENGTH });
      const invalid = firstError(validateSettings(settings));
      if (invalid) return t('retrieval.errors.fixSettings', { error: invalid });
      const mode: QueryMode = parsed.mode ?? settings.mode;
      const history = sendsHistory(settings, mode)
        ? selectHistory(current.current, parseWhole(settings.historyTurns, 0) ?? 0)
        : [];
      const request = buildRequest(settings, parsed.query, mode, history);
      const now = Date.now();
      const question: UserMessage = { id: newId(now), role: 'user', text: parsed.query, mode, at: now };
      const answer: AssistantMessage = {
        id: newId(now),
        role: 'assistant',
        text: '',
        status: 'pending',
        references: null,
        trace: null,
        request,
        streamed: settings.stream,
        kind: answerKind(request),
        startedAt: now,
      };
      const next = [...current.current, question, answer];
      current.current = next;
      setMessages(next);
      saveHistory(local, workspace, next, user);
      run(answer);
      return null;
    },
    [run, workspace, user],
  );

  const stop = useCallback(() => abort.current?.abort(), []);

  const retry = useCallback(
    (answerId: string) => {
      if (current.current.some(isBusy)) return;
      const m = current.current.find((x) => x.id === answerId);
      if (!m || m.role !== 'assistant') return;
      const again = restart(m, Date.now());
      replace(again);
      run(again);
    },
    [replace, run],
  );

  const clear = useCallback(() => {
    abort.current?.abort();
    current.current = [];
    setMessages([]);
    saveHistory(local, workspace, [], user);
  }, [workspace, user]);

  return { messages, busy, send, stop, retry, clear };
}
