// The UI's translations (i18next + react-i18next). English is bundled; the other catalogs are
// separate chunks loaded when chosen. The language is the user's choice (remembered in
// localStorage), else the first of the browser's languages the UI offers, else English.
// <html lang dir> follow it, so right-to-left languages lay out right to left.
import i18next, { type TOptions } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { local } from '../lib/storage';
import { createStore } from '../lib/store';
import { DEFAULT_LANGUAGE, languageOf, LANGUAGES, matchLanguage, matchOne } from './languages';
import en from './locales/en.json';

const KEY = 'lightrag-rs.language';

const loaders = import.meta.glob<{ default: Record<string, unknown> }>(['./locales/*.json', '!./locales/en.json']);

export const i18n = i18next.createInstance();

void i18n.use(initReactI18next).init({
  lng: DEFAULT_LANGUAGE,
  fallbackLng: DEFAULT_LANGUAGE,
  supportedLngs: LANGUAGES.map((l) => l.code),
  resources: { en: { translation: en } },
  interpolation: { escapeValue: false }, // React escapes
  returnNull: false,
  initAsync: false,
});

/** The language in use (a code of LANGUAGES); components re-render through useTranslation. */
export const language = createStore<string>(DEFAULT_LANGUAGE);

/** The BCP 47 tag for Intl formatters. */
export function locale(): string {
  return language.get();
}

/** A message of the current language, for code outside components (components use useTranslation). */
export function t(key: string, options?: TOptions): string {
  return options ? i18n.t(key, options) : i18n.t(key);
}

function browserLanguages(): readonly string[] {
  if (typeof navigator === 'undefined') return [];
  return navigator.languages?.length ? navigator.languages : navigator.language ? [navigator.language] : [];
}

/** The remembered choice, else the browser's preference. */
export function initialLanguage(): string {
  const saved = local.getItem(KEY);
  const chosen = saved ? matchOne(saved) : null;
  return chosen ?? matchLanguage(browserLanguages());
}

async function load(code: string): Promise<void> {
  if (i18n.hasResourceBundle(code, 'translation')) return;
  const loader = loaders[`./locales/${code}.json`];
  if (!loader) throw new Error(`no catalog for ${code}`);
  const mod = await loader();
  i18n.addResourceBundle(code, 'translation', mod.default, true, true);
}

function applyDocument(code: string): void {
  if (typeof document === 'undefined') return;
  document.documentElement.lang = code;
  document.documentElement.dir = languageOf(code).dir;
}

/** Switches the UI to `code` (loading its catalog first); `remember` keeps the choice. */
export async function setLanguage(code: string, remember = true): Promise<void> {
  const lang = languageOf(matchOne(code) ?? DEFAULT_LANGUAGE).code;
  try {
    await load(lang);
  } catch {
    // the catalog chunk did not load (offline, stale build): stay in the current language
    return;
  }
  if (remember) local.setItem(KEY, lang);
  // the store first: the re-render that changeLanguage triggers formats dates and numbers with it
  language.set(lang);
  applyDocument(lang);
  await i18n.changeLanguage(lang);
}

/** At start-up: the initial language, before the first render when it is English. */
export function startI18n(): Promise<void> {
  const lang = initialLanguage();
  applyDocument(DEFAULT_LANGUAGE);
  return lang === DEFAULT_LANGUAGE ? Promise.resolve() : setLanguage(lang, false);
}
