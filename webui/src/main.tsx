import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { applyTheme, theme } from './state/theme';
import './styles/base.css';

applyTheme(theme.get());
window.matchMedia?.('(prefers-color-scheme: dark)').addEventListener('change', () => applyTheme(theme.get()));

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
