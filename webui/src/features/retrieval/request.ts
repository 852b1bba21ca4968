// From what the user typed and the settings to the request body: the `/mode` prefix, the
// keywords, the conversation history, and which parameters differ from the defaults.
import { QUERY_MODES, type ChatTurn, type QueryMode, type QueryRequest } from '../../api/types';
import { t } from '../../i18n';
import type { Message } from './model';
import {
  DEFAULT_RESPONSE_TYPE,
  DEFAULT_SETTINGS,
  NUMBER_FIELDS,
  parseWhole,
  type QuerySettings,
} from './settings';
import { splitThink } from './think';

export const MIN_QUERY_LENGTH = 3;

export type PrefixResult =
  | { ok: true; mode: QueryMode | null; query: string }
  | { ok: false; error: string };

/**
 * `/local who is Alice?` → mode local, query "who is Alice?". Text without a leading `/` has no
 * mode. An unknown `/word` is an error (as in LightRAG), so is a prefix without a question.
 */
export function parseModePrefix(input: string): PrefixResult {
  const text = input.trim();
  const m = /^\/(\S*)(?:\s+([\s\S]*))?$/.exec(text);
  if (!m) return { ok: true, mode: null, query: text };
  const word = (m[1] ?? '').toLowerCase();
  const rest = (m[2] ?? '').trim();
  if (!(QUERY_MODES as string[]).includes(word)) {
    return {
      ok: false,
      error: t('retrieval.errors.unknownMode', { word: m[1] ?? '', modes: QUERY_MODES.map((q) => `/${q}`).join(', ') }),
    };
  }
  if (rest === '') return { ok: false, error: t('retrieval.errors.emptyAfterMode', { word }) };
  return { ok: true, mode: word as QueryMode, query: rest };
}

/** "a, b ,, c" → ["a", "b", "c"] (trimmed, empty and repeated items dropped). */
export function splitKeywords(text: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const part of text.split(/[,\n]/)) {
    const k = part.trim();
    if (k !== '' && !seen.has(k)) {
      seen.add(k);
      out.push(k);
    }
  }
  return out;
}

/**
 * The last `turns` question/answer pairs of the conversation, oldest first: only complete
 * answers (done, or stopped with some text), never errors or only_need_context/prompt outputs;
 * answers without their `<think>` part.
 */
export function selectHistory(messages: Message[], turns: number): ChatTurn[] {
  if (turns <= 0) return [];
  const pairs: [ChatTurn, ChatTurn][] = [];
  for (let i = 1; i < messages.length; i++) {
    const q = messages[i - 1];
    const a = messages[i];
    if (!q || !a || q.role !== 'user' || a.role !== 'assistant') continue;
    if (a.kind !== 'answer') continue;
    const answer = splitThink(a.text, false).answer.trim();
    const usable = a.status === 'done' || (a.status === 'stopped' && answer !== '');
    if (!usable || answer === '') continue;
    pairs.push([
      { role: 'user', content: q.text },
      { role: 'assistant', content: answer },
    ]);
  }
  return pairs.slice(-turns).flat();
}

/** Whether the settings say to send history with a query in this mode. */
export function sendsHistory(settings: QuerySettings, mode: QueryMode): boolean {
  return mode === 'bypass' || settings.historyInAllModes;
}

/**
 * The request body. Parameters still at their defaults are left out (the server applies its
 * own configuration, e.g. TOP_K); `mode` is always sent; `include_trace` asks for the retrieval
 * trace (ours; other servers ignore it). Settings must be valid (see validateSettings).
 */
export function buildRequest(
  settings: QuerySettings,
  query: string,
  mode: QueryMode,
  history: ChatTurn[],
): QueryRequest {
  const req: QueryRequest = { query, mode };
  const rt = settings.responseType.trim();
  if (rt !== '' && rt !== DEFAULT_RESPONSE_TYPE) req.response_type = rt;
  for (const f of NUMBER_FIELDS) {
    const n = parseWhole(settings[f.key], 1);
    if (n !== null && n !== f.default) req[f.api] = n;
  }
  if (settings.enableRerank !== DEFAULT_SETTINGS.enableRerank) req.enable_rerank = settings.enableRerank;
  if (settings.onlyNeedContext) req.only_need_context = true;
  if (settings.onlyNeedPrompt) req.only_need_prompt = true;
  if (!settings.includeReferences) req.include_references = false;
  if (settings.includeReferences && settings.includeChunkContent) req.include_chunk_content = true;
  const prompt = settings.userPrompt.trim();
  if (prompt !== '') req.user_prompt = prompt;
  const hl = splitKeywords(settings.hlKeywords);
  const ll = splitKeywords(settings.llKeywords);
  if (hl.length > 0) req.hl_keywords = hl;
  if (ll.length > 0) req.ll_keywords = ll;
  if (history.length > 0) req.conversation_history = history;
  req.include_trace = true;
  return req;
}

/** The request /query/data needs to return the records behind an answer (no answer options). */
export function dataRequest(req: QueryRequest): QueryRequest {
  const out: QueryRequest = { ...req };
  delete out.conversation_history;
  delete out.stream;
  delete out.only_need_context;
  delete out.only_need_prompt;
  delete out.user_prompt;
  delete out.response_type;
  return out;
}
