// The query settings of the retrieval page: their defaults (LightRAG's), validation and
// persistence. Number fields are kept as the text the user typed, so an invalid entry can be
// shown with its error instead of being silently replaced.
import { QUERY_MODES, type QueryMode } from '../../api/types';
import { t } from '../../i18n';
import type { KeyValueStorage } from '../../lib/storage';

export interface QuerySettings {
  mode: QueryMode;
  responseType: string;
  topK: string;
  chunkTopK: string;
  maxEntityTokens: string;
  maxRelationTokens: string;
  maxTotalTokens: string;
  enableRerank: boolean;
  onlyNeedContext: boolean;
  onlyNeedPrompt: boolean;
  stream: boolean;
  includeReferences: boolean;
  includeChunkContent: boolean;
  userPrompt: string;
  /** Comma-separated high-level keywords (empty = the server extracts them). */
  hlKeywords: string;
  /** Comma-separated low-level keywords. */
  llKeywords: string;
  /** How many earlier question/answer pairs to send as conversation_history. */
  historyTurns: string;
  /** Send the history in every mode (LightRAG sends it only in bypass mode). */
  historyInAllModes: boolean;
  /** Price per 1M input tokens ("" = show tokens only). Kept by "reset to defaults". */
  priceIn: string;
  /** Price per 1M output tokens. */
  priceOut: string;
}

export const DEFAULT_RESPONSE_TYPE = 'Multiple Paragraphs';
export const RESPONSE_TYPES = ['Multiple Paragraphs', 'Single Paragraph', 'Bullet Points'];

export type NumberKey = 'topK' | 'chunkTopK' | 'maxEntityTokens' | 'maxRelationTokens' | 'maxTotalTokens';

export interface NumberField {
  key: NumberKey;
  api: 'top_k' | 'chunk_top_k' | 'max_entity_tokens' | 'max_relation_tokens' | 'max_total_tokens';
  label: string;
  help: string;
  default: number;
}

export const NUMBER_FIELDS: NumberField[] = [
  numberField('topK', 'top_k', 40, 'retrieval.field.topK', 'retrieval.field.topKHelp'),
  numberField('chunkTopK', 'chunk_top_k', 20, 'retrieval.field.chunkTopK', 'retrieval.field.chunkTopKHelp'),
  numberField('maxEntityTokens', 'max_entity_tokens', 6000, 'retrieval.field.maxEntityTokens', 'retrieval.field.maxEntityTokensHelp'),
  numberField('maxRelationTokens', 'max_relation_tokens', 8000, 'retrieval.field.maxRelationTokens', 'retrieval.field.maxRelationTokensHelp'),
  numberField('maxTotalTokens', 'max_total_tokens', 30000, 'retrieval.field.maxTotalTokens', 'retrieval.field.maxTotalTokensHelp'),
];

/** A field whose label and help are read in the UI's language each time they are shown. */
function numberField(key: NumberKey, api: NumberField['api'], value: number, labelKey: string, helpKey: string): NumberField {
  return {
    key,
    api,
    default: value,
    get label() {
      return t(labelKey);
    },
    get help() {
      return t(helpKey);
    },
  };
}

export const DEFAULT_HISTORY_TURNS = 3;

export const DEFAULT_SETTINGS: QuerySettings = {
  mode: 'auto',
  responseType: DEFAULT_RESPONSE_TYPE,
  topK: '40',
  chunkTopK: '20',
  maxEntityTokens: '6000',
  maxRelationTokens: '8000',
  maxTotalTokens: '30000',
  enableRerank: true,
  onlyNeedContext: false,
  onlyNeedPrompt: false,
  stream: true,
  includeReferences: true,
  includeChunkContent: false,
  userPrompt: '',
  hlKeywords: '',
  llKeywords: '',
  historyTurns: String(DEFAULT_HISTORY_TURNS),
  historyInAllModes: false,
  priceIn: '',
  priceOut: '',
};

/** Back to the defaults, keeping the user's prices (they describe their provider, not a query). */
export function resetSettings(current: QuerySettings): QuerySettings {
  return { ...DEFAULT_SETTINGS, priceIn: current.priceIn, priceOut: current.priceOut };
}

/** A whole number ≥ min, or null. */
export function parseWhole(text: string, min: number): number | null {
  const t = text.trim();
  if (!/^\d+$/.test(t)) return null;
  const n = Number(t);
  return Number.isSafeInteger(n) && n >= min ? n : null;
}

/** A price ≥ 0, or null (empty or invalid). */
export function parsePrice(text: string): number | null {
  const t = text.trim().replace(',', '.');
  if (t === '' || !/^\d*\.?\d+$|^\d+\.$/.test(t)) return null;
  const n = Number(t);
  return Number.isFinite(n) && n >= 0 ? n : null;
}

export type SettingsErrors = Partial<Record<keyof QuerySettings, string>>;

export function validateSettings(s: QuerySettings): SettingsErrors {
  const errors: SettingsErrors = {};
  for (const f of NUMBER_FIELDS) {
    if (parseWhole(s[f.key], 1) === null) errors[f.key] = t('retrieval.field.wholeFrom1');
  }
  if (parseWhole(s.historyTurns, 0) === null) errors.historyTurns = t('retrieval.field.wholeFrom0');
  for (const key of ['priceIn', 'priceOut'] as const) {
    if (s[key].trim() !== '' && parsePrice(s[key]) === null) errors[key] = t('retrieval.field.price');
  }
  return errors;
}

/** The first error as one sentence ("Top K: a whole number ≥ 1."), or null. */
export function firstError(errors: SettingsErrors): string | null {
  const labels: Partial<Record<keyof QuerySettings, string>> = {
    historyTurns: t('retrieval.field.historyTurns'),
    priceIn: t('retrieval.field.priceIn'),
    priceOut: t('retrieval.field.priceOut'),
  };
  for (const f of NUMBER_FIELDS) labels[f.key] = f.label;
  for (const [key, message] of Object.entries(errors)) {
    if (!message) continue;
    const label = labels[key as keyof QuerySettings] ?? key;
    return t('retrieval.field.error', { label, message: `${message.charAt(0).toLocaleLowerCase()}${message.slice(1)}` });
  }
  return null;
}

export const SETTINGS_KEY = 'lightrag-rs.retrieval.settings';

/** The stored settings merged over the defaults; fields of the wrong type are ignored. */
export function loadSettings(storage: KeyValueStorage): QuerySettings {
  let stored: unknown;
  try {
    stored = JSON.parse(storage.getItem(SETTINGS_KEY) ?? 'null');
  } catch {
    stored = null;
  }
  const out: QuerySettings = { ...DEFAULT_SETTINGS };
  if (!stored || typeof stored !== 'object') return out;
  const s = stored as Record<string, unknown>;
  const target = out as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(DEFAULT_SETTINGS)) {
    if (typeof s[key] === typeof value) target[key] = s[key];
  }
  if (!(QUERY_MODES as string[]).includes(out.mode)) out.mode = DEFAULT_SETTINGS.mode;
  return out;
}

export function saveSettings(storage: KeyValueStorage, s: QuerySettings): void {
  storage.setItem(SETTINGS_KEY, JSON.stringify(s));
}

/** Human names of the modes (for selects and badges), in the UI's language (getters). */
export const MODE_LABELS: Record<QueryMode, string> = {
  get auto() {
    return t('retrieval.mode.auto');
  },
  get mix() {
    return t('retrieval.mode.mix');
  },
  get local() {
    return t('retrieval.mode.local');
  },
  get global() {
    return t('retrieval.mode.global');
  },
  get hybrid() {
    return t('retrieval.mode.hybrid');
  },
  get naive() {
    return t('retrieval.mode.naive');
  },
  get ppr() {
    return t('retrieval.mode.ppr');
  },
  get bypass() {
    return t('retrieval.mode.bypass');
  },
};

export const MODE_HELP: Record<QueryMode, string> = {
  get auto() {
    return t('retrieval.modeHelp.auto');
  },
  get mix() {
    return t('retrieval.modeHelp.mix');
  },
  get local() {
    return t('retrieval.modeHelp.local');
  },
  get global() {
    return t('retrieval.modeHelp.global');
  },
  get hybrid() {
    return t('retrieval.modeHelp.hybrid');
  },
  get naive() {
    return t('retrieval.modeHelp.naive');
  },
  get ppr() {
    return t('retrieval.modeHelp.ppr');
  },
  get bypass() {
    return t('retrieval.modeHelp.bypass');
  },
};
