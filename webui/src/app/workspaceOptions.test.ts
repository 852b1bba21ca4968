import { describe, expect, it } from 'vitest';
import { isMine, workspaceOptions } from './workspaceOptions';

const list = (workspaces: string[], def = '') => ({ workspaces, default: def, current: '' });

describe('workspace picker options', () => {
  it("offers the caller's workspaces only, not the default nor a remembered one", () => {
    // an editor of team_a: the server lists team_a only
    expect(workspaceOptions(list(['team_a']), 'team_a')).toEqual([{ value: 'team_a', foreign: false }]);
  });

  it('marks a current workspace that is not one of the caller\u2019s instead of listing it as theirs', () => {
    // team_b remembered in local storage from another session
    expect(workspaceOptions(list(['team_a']), 'team_b')).toEqual([
      { value: 'team_a', foreign: false },
      { value: 'team_b', foreign: true },
    ]);
    // the default workspace (no header) when the caller has no role there
    expect(workspaceOptions(list(['team_a']), '')).toEqual([
      { value: '', foreign: true },
      { value: 'team_a', foreign: false },
    ]);
  });

  it('counts "" as the default workspace when the default is listed', () => {
    expect(workspaceOptions(list(['', 'team_a']), '')).toEqual([
      { value: '', foreign: false },
      { value: 'team_a', foreign: false },
    ]);
    expect(workspaceOptions(list(['main', 'x'], 'main'), '')).toEqual([
      { value: '', foreign: false },
      { value: 'main', foreign: false },
      { value: 'x', foreign: false },
    ]);
    expect(isMine(list(['x'], 'main'), '')).toBe(false);
  });

  it('does not mark a workspace the user just opened as new', () => {
    expect(workspaceOptions(list(['a']), 'fresh', ['fresh'])).toEqual([
      { value: 'a', foreign: false },
      { value: 'fresh', foreign: false },
    ]);
  });

  it('without a list (old server, failure) offers the default and the current workspace', () => {
    expect(workspaceOptions(null, 'x')).toEqual([
      { value: '', foreign: false },
      { value: 'x', foreign: false },
    ]);
  });
});
