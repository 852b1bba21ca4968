// The languages the UI offers, and how a browser's preferences map onto them. A language is
// listed here only when its catalog is complete (src/i18n/catalogs.test.ts checks every key).

export interface Language {
  /** BCP 47 tag; also the catalog's file name (locales/<code>.json). */
  code: string;
  /** The language's name in itself, as the picker shows it. */
  name: string;
  dir: 'ltr' | 'rtl';
}

export const LANGUAGES: readonly Language[] = [
  { code: 'en', name: 'English', dir: 'ltr' },
  { code: 'zh-CN', name: '简体中文', dir: 'ltr' },
  { code: 'zh-TW', name: '繁體中文', dir: 'ltr' },
  { code: 'vi', name: 'Tiếng Việt', dir: 'ltr' },
  { code: 'ja', name: '日本語', dir: 'ltr' },
  { code: 'ko', name: '한국어', dir: 'ltr' },
  { code: 'fr', name: 'Français', dir: 'ltr' },
  { code: 'de', name: 'Deutsch', dir: 'ltr' },
  { code: 'es', name: 'Español', dir: 'ltr' },
  { code: 'ru', name: 'Русский', dir: 'ltr' },
  { code: 'uk', name: 'Українська', dir: 'ltr' },
  { code: 'ar', name: 'العربية', dir: 'rtl' },
];

export const DEFAULT_LANGUAGE = 'en';

/** Chinese tags that mean Traditional script (by script subtag or region). */
const TRADITIONAL = /^zh-(hant|tw|hk|mo)\b/i;

/** The offered language closest to one BCP 47 tag, or null. */
export function matchOne(tag: string): string | null {
  const t = tag.trim();
  if (t === '') return null;
  const exact = LANGUAGES.find((l) => l.code.toLowerCase() === t.toLowerCase());
  if (exact) return exact.code;
  const primary = t.split(/[-_]/)[0]?.toLowerCase() ?? '';
  if (primary === 'zh') {
    const code = TRADITIONAL.test(t.replace('_', '-')) ? 'zh-TW' : 'zh-CN';
    return LANGUAGES.some((l) => l.code === code) ? code : null;
  }
  return LANGUAGES.find((l) => l.code.split('-')[0]?.toLowerCase() === primary)?.code ?? null;
}

/** The first offered language among the browser's preferences (navigator.languages), else English. */
export function matchLanguage(preferred: readonly string[]): string {
  for (const tag of preferred) {
    const code = matchOne(tag);
    if (code) return code;
  }
  return DEFAULT_LANGUAGE;
}

export function languageOf(code: string): Language {
  return LANGUAGES.find((l) => l.code === code) ?? (LANGUAGES[0] as Language);
}
