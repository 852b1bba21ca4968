// Short messages shown in the corner (errors, confirmations). Errors stay until dismissed.
import { createStore } from '../lib/store';

export type NoticeKind = 'info' | 'success' | 'error';

export interface Notice {
  id: number;
  kind: NoticeKind;
  text: string;
}

export const notices = createStore<Notice[]>([]);

let nextId = 1;

export function notify(kind: NoticeKind, text: string, timeoutMs = kind === 'error' ? 0 : 4000): number {
  const id = nextId++;
  notices.set((list) => [...list.slice(-4), { id, kind, text }]);
  if (timeoutMs > 0) setTimeout(() => dismiss(id), timeoutMs);
  return id;
}

export function dismiss(id: number): void {
  notices.set((list) => list.filter((n) => n.id !== id));
}
