import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { startI18n } from './i18n';
import { applyTheme, theme } from './state/theme';
import './styles/base.css';

applyTheme(theme.get());
window.matchMedia?.('(prefers-color-scheme: dark)').addEventListener('change', () => applyTheme(theme.get()));

const root = document.getElementById('root');
// the first render waits for the catalog of a non-English language (a small chunk), so the UI
// does not flash in English first
void startI18n().finally(() => {
  if (root) {
    createRoot(root).render(
      <StrictMode>
        <App />
      </StrictMode>,
    );
  }
});
