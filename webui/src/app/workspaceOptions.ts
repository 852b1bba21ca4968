// What the workspace picker offers: the caller's workspaces as GET /workspaces lists them (the
// server lists only the caller's), never names from elsewhere (a workspace remembered from a
// previous session, another user's). The current workspace, when it is not among them, is
// offered marked as foreign so the user sees that it is not one of theirs — unless the user
// opened it as a new workspace in this page (the server lists a workspace once it exists).
import type { WorkspaceList } from '../api/types';

export interface WorkspaceOption {
  /** The header value ("" = the server's default workspace, no header). */
  value: string;
  /** The current workspace, which is not one of the caller's. */
  foreign: boolean;
}

/**
 * The options for `current` given the server's answer (`null`: the server has no /workspaces
 * route or it failed — then only the default and the current workspace are offered).
 */
export function workspaceOptions(list: WorkspaceList | null, current: string, opened: readonly string[] = []): WorkspaceOption[] {
  if (!list) {
    return [...new Set(['', current])].sort().map((value) => ({ value, foreign: false }));
  }
  const options = [...new Set(list.workspaces)].sort().map((value) => ({ value, foreign: false }));
  if (!options.some((o) => o.value === current)) {
    // "" (no header) is the default workspace: one of the caller's when the default is listed
    const foreign = !isMine(list, current) && !opened.includes(current);
    options.push({ value: current, foreign });
  }
  return options.sort((a, b) => a.value.localeCompare(b.value));
}

/** Whether `current` is one of the listed workspaces ("" stands for the default). */
export function isMine(list: WorkspaceList, current: string): boolean {
  const name = current === '' ? list.default : current;
  return list.workspaces.includes(name);
}
