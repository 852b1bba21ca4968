// Hash routes (`#/documents`, `#/graph?label=X`, …) so links and reloads keep the page, and
// cross-links between pages: "show these entities in the graph", "show this document".
import type { DocStatusResponse } from '../api/types';
import { createStore } from '../lib/store';

export type Page = 'documents' | 'graph' | 'retrieval' | 'api';
export const PAGES: Page[] = ['documents', 'graph', 'retrieval', 'api'];

export interface Route {
  page: Page;
  params: Record<string, string>;
}

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#\/?/, '');
  const [path = '', qs = ''] = raw.split('?', 2);
  const page = (PAGES as string[]).includes(path) ? (path as Page) : 'documents';
  const params: Record<string, string> = {};
  new URLSearchParams(qs).forEach((v, k) => {
    params[k] = v;
  });
  return { page, params };
}

export function formatHash(route: Route): string {
  const qs = new URLSearchParams(route.params).toString();
  return `#/${route.page}${qs ? `?${qs}` : ''}`;
}

export const route = createStore<Route>(
  parseHash(typeof window === 'undefined' ? '' : window.location.hash),
);

export function navigate(page: Page, params: Record<string, string> = {}): void {
  const next = { page, params };
  const hash = formatHash(next);
  if (typeof window !== 'undefined' && window.location.hash !== hash) window.location.hash = hash;
  route.set(next);
}

export function listenToHash(): () => void {
  const onChange = () => route.set(parseHash(window.location.hash));
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
}

/** What the graph page should show when opened from elsewhere (the retrieval trace, a link). */
export interface GraphFocus {
  /** Start label for /graphs ("*" = everything). */
  label?: string;
  /** Entities to highlight. */
  entities: string[];
  /** Relations to highlight, as [source, target]. */
  relations: [string, string][];
  /** Entity to select and open in the properties panel. */
  select?: string;
}

export const graphFocus = createStore<GraphFocus | null>(null);

export function showInGraph(focus: GraphFocus): void {
  graphFocus.set(focus);
  navigate('graph', focus.label ? { label: focus.label } : {});
}

/** A document to show on the documents page (e.g. from an entity's sources); `doc` when the caller has it already. */
export const documentFocus = createStore<{ docId: string; filePath?: string; doc?: DocStatusResponse } | null>(null);

export function showDocument(docId: string, filePath?: string, doc?: DocStatusResponse): void {
  documentFocus.set({ docId, filePath, doc });
  navigate('documents');
}
