// Light or dark theme: the user's choice, else the system's.
import { createStore } from '../lib/store';
import { local } from '../lib/storage';

export type ThemeChoice = 'light' | 'dark' | 'system';
const KEY = 'lightrag-rs.theme';

function initial(): ThemeChoice {
  const v = local.getItem(KEY);
  return v === 'light' || v === 'dark' ? v : 'system';
}

export const theme = createStore<ThemeChoice>(initial());

export function effectiveTheme(choice: ThemeChoice): 'light' | 'dark' {
  if (choice !== 'system') return choice;
  const dark = typeof window !== 'undefined' && window.matchMedia?.('(prefers-color-scheme: dark)').matches;
  return dark ? 'dark' : 'light';
}

export function applyTheme(choice: ThemeChoice): void {
  document.documentElement.dataset.theme = effectiveTheme(choice);
}

export function setTheme(choice: ThemeChoice): void {
  if (choice === 'system') local.removeItem(KEY);
  else local.setItem(KEY, choice);
  theme.set(choice);
  applyTheme(choice);
}
