// Runtime configuration injected by the server into index.html (`window.__LIGHTRAG_CONFIG__`).
// In `npm run dev` there is none: the API is at the page's origin (Vite forwards it).

export interface RuntimeConfig {
  /** LIGHTRAG_API_PREFIX, e.g. "/lightrag", or "". API calls go to `${apiPrefix}/query` etc. */
  apiPrefix: string;
  /** Where the UI itself is served, e.g. "/lightrag/webui/". */
  webuiPrefix: string;
  /** WEBUI_TITLE. */
  title: string;
  /** WEBUI_DESCRIPTION. */
  description: string;
}

declare global {
  interface Window {
    __LIGHTRAG_CONFIG__?: Partial<RuntimeConfig>;
  }
}

/** Normalises a prefix: "" or "/name" without a trailing slash. */
export function normalisePrefix(prefix: string | undefined): string {
  const p = (prefix ?? '').trim().replace(/\/+$/, '');
  if (p === '') return '';
  return p.startsWith('/') ? p : `/${p}`;
}

export function readRuntimeConfig(injected: Partial<RuntimeConfig> | undefined): RuntimeConfig {
  const apiPrefix = normalisePrefix(injected?.apiPrefix);
  return {
    apiPrefix,
    webuiPrefix: injected?.webuiPrefix ?? `${apiPrefix}/webui/`,
    title: injected?.title || 'LightRAG',
    description: injected?.description || 'Simple and Fast Graph Based RAG System',
  };
}

export const runtimeConfig: RuntimeConfig = readRuntimeConfig(
  typeof window === 'undefined' ? undefined : window.__LIGHTRAG_CONFIG__,
);
