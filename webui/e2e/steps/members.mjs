// Steps of the "roles" run (LIGHTRAG_API_KEY set: its holder is an owner): the members page of a
// workspace creates API keys (shown once), lists and revokes them; a key's holder sees only its
// workspaces in the picker (issue 30).
import assert from 'node:assert/strict';

/** The UI asks for an API key (the server answers 403 "API Key required"); give it `key`. */
export async function loginWithApiKey(page, ctx, key) {
  if (!page.url().startsWith(ctx.webuiUrl)) await page.goto(ctx.webuiUrl);
  const input = page.locator('input[name=api-key]');
  await input.waitFor();
  await input.fill(key);
  await page.locator('form.login-form button[type=submit]').click();
  await page.getByTestId('tab-documents').waitFor();
}

/** Calls the server as `key` in `workspace`. */
export async function call(ctx, key, workspace, method, path, body) {
  const r = await fetch(`${ctx.url}${path}`, {
    method,
    headers: {
      'X-API-Key': key,
      ...(workspace ? { 'LIGHTRAG-WORKSPACE': workspace } : {}),
      ...(body ? { 'Content-Type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: r.status, body: await r.text() };
}

async function pickerOptions(page) {
  return page.getByTestId('workspace-select').locator('option').evaluateAll((os) =>
    os.filter((o) => !o.value.startsWith('\u0000')).map((o) => ({ value: o.value, foreign: o.dataset.foreign === 'true' })),
  );
}

/** The owner's picker lists both workspaces; team_a is picked. */
export async function ownerSeesBoth(page, ctx, master) {
  for (const ws of ['team_a', 'team_b']) {
    const r = await call(ctx, master, ws, 'POST', '/documents/text', { text: `A note of ${ws}.`, file_source: `${ws}.txt` });
    assert.equal(r.status, 200, `master writes to ${ws}: ${r.body}`);
  }
  const listed = JSON.parse((await call(ctx, master, '', 'GET', '/workspaces')).body);
  assert.ok(listed.workspaces.includes('team_b'), `the server lists team_b: ${JSON.stringify(listed)}`);
  await page.reload();
  await page.getByTestId('tab-documents').waitFor();
  const select = page.getByTestId('workspace-select');
  await select.locator('option[value=team_b]').waitFor({ state: 'attached' });
  const values = (await pickerOptions(page)).map((o) => o.value);
  assert.ok(values.includes('team_a') && values.includes('team_b'), `the owner sees both workspaces: ${values}`);
  await select.selectOption('team_a');
  await page.getByTestId('members-button').waitFor();
}

/** Creates a key in the open members dialog; returns the key shown once. */
async function createKey(page, dialog, name, role, days) {
  await dialog.getByTestId('members-key-name').fill(name);
  await dialog.getByRole('combobox', { name: 'Role of the new key' }).selectOption(role);
  await dialog.getByTestId('members-key-days').fill(days ? String(days) : '');
  await dialog.getByRole('button', { name: 'Create the key' }).click();
  const shown = dialog.getByTestId('members-new-key');
  await shown.waitFor();
  await shown.getByText(`This is the only time the key ${name} is shown`).waitFor();
  await shown.getByRole('button', { name: 'Copy' }).waitFor();
  const key = await dialog.getByTestId('members-key-value').inputValue();
  assert.match(key, /^lrk_/, 'the new key is shown');
  await dialog.getByTestId('members-key-done').click();
  await shown.waitFor({ state: 'detached' });
  assert.equal(await dialog.getByTestId('members-key-value').count(), 0, 'the key is shown once');
  await dialog.locator(`[data-testid=members-keys] tr[data-key="${name}"]`).waitFor();
  return key;
}

/**
 * In team_a's members page: a reader key and an editor key are created (each shown once), listed
 * in the keys and the grants with their roles, the reader key is revoked after a confirmation
 * (and refused by the server at once), and the audit lists the changes.
 */
export async function manageKeys(page, ctx) {
  await page.getByTestId('members-button').click();
  const dialog = page.getByTestId('members-dialog');
  await dialog.getByRole('heading', { name: 'Members of team_a' }).waitFor();
  const readerKey = await createKey(page, dialog, 'e2e_reader', 'reader');
  const editorKey = await createKey(page, dialog, 'e2e_editor', 'editor', 7);
  const grants = dialog.getByTestId('members-grants');
  await grants.locator('tr[data-principal=e2e_reader]').getByText('API key').waitFor();
  assert.equal(await grants.getByRole('combobox', { name: 'Role of e2e_editor' }).inputValue(), 'editor');
  assert.equal((await call(ctx, readerKey, 'team_a', 'GET', '/documents/status_counts')).status, 200, 'the reader key works');
  await ctx.screenshot('members');

  await dialog.getByRole('button', { name: 'Revoke the key e2e_reader' }).click();
  const confirm = page.getByRole('dialog', { name: 'Revoke this key?' });
  await confirm.getByText('The key e2e_reader stops working').waitFor();
  await confirm.getByRole('button', { name: 'Revoke', exact: true }).click();
  await dialog.locator('[data-testid=members-keys] tr[data-key=e2e_reader]').getByText('revoked').waitFor();
  assert.equal(await dialog.getByRole('button', { name: 'Revoke the key e2e_reader' }).count(), 0);
  assert.equal((await call(ctx, readerKey, 'team_a', 'GET', '/documents/status_counts')).status, 401, 'the revoked key is refused');

  const audit = dialog.getByTestId('members-audit');
  await audit.waitFor();
  assert.ok((await audit.locator('tbody tr').count()) > 0, 'the audit lists the changes');
  await ctx.screenshot('members-revoked');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  return editorKey;
}

/**
 * With the editor key of team_a: the picker lists team_a only (not team_b), and there is no
 * members page; a workspace remembered from elsewhere (team_b) is shown as not the caller's.
 */
export async function editorSeesOnlyItsWorkspace(page, ctx, editorKey) {
  await page.getByTestId('logout').click();
  await loginWithApiKey(page, ctx, editorKey);
  const select = page.getByTestId('workspace-select');
  await select.locator('option[value=team_a]').waitFor({ state: 'attached' });
  await page.waitForLoadState('networkidle');
  assert.deepEqual(await pickerOptions(page), [{ value: 'team_a', foreign: false }], 'the editor of team_a sees only team_a');
  assert.equal(await page.getByTestId('members-button').count(), 0, 'no members page for a non-owner');
  await ctx.screenshot('editor-picker');

  await page.evaluate(() => localStorage.setItem('LIGHTRAG-WORKSPACE', 'team_b'));
  await page.reload();
  await page.getByTestId('workspace-not-yours').waitFor();
  assert.deepEqual(await pickerOptions(page), [
    { value: 'team_a', foreign: false },
    { value: 'team_b', foreign: true },
  ]);
  await ctx.screenshot('editor-foreign-workspace');
  await select.selectOption('team_a');
  await page.getByTestId('workspace-not-yours').waitFor({ state: 'detached' });
}

/** The members page at phone width: nothing wider than the window. */
export async function membersOnPhone(page, ctx) {
  const size = page.viewportSize();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByTestId('members-button').click();
  const dialog = page.getByTestId('members-dialog');
  await dialog.getByTestId('members-keys').waitFor();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `the members page scrolls horizontally at 390 px (${overflow} px too wide)`);
  await ctx.screenshot('phone-members');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  if (size) await page.setViewportSize(size);
}

/** The key the UI uses is revoked: its next requests fail (401) and the UI asks for another key. */
export async function revokedKeyAsksAgain(page, ctx, master) {
  const r = await call(ctx, master, '', 'DELETE', '/admin/keys?name=e2e_editor');
  assert.equal(r.status, 200, `revoke e2e_editor: ${r.body}`);
  await page.reload();
  await page.locator('input[name=api-key]').waitFor();
  await page.getByRole('alert').getByText('The server did not accept this API key.').waitFor();
}
