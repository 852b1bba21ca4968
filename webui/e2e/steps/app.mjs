// Steps of the application shell: login, the header, the status dialog, themes, narrow screens.
import assert from 'node:assert/strict';

/** Opens the UI; with accounts, a wrong password is refused first, then the right one logs in. */
export async function openAndLogin(page, ctx, account) {
  await page.goto(ctx.webuiUrl);
  if (!account) {
    // guest mode: no login form, straight to the app
    await page.getByTestId('tab-documents').waitFor();
    assert.equal(await page.locator('input[name=password]').count(), 0, 'guest mode shows no login form');
    return;
  }
  const user = page.locator('input[name=username]');
  await user.waitFor();
  await ctx.screenshot('login');
  ctx.watch.expect(/401.*\/login\b/);
  await user.fill(account.username);
  await page.locator('input[name=password]').fill('wrong password');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('alert').filter({ hasText: /credentials/i }).waitFor();
  await page.locator('input[name=password]').fill(account.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByTestId('tab-documents').waitFor();
  await page.getByTestId('logout').filter({ hasText: account.username }).waitFor();
}

/** The status dialog shows /health's configuration. */
export async function statusDialog(page, ctx) {
  await page.getByTestId('status-button').click();
  const dialog = page.getByTestId('status-dialog');
  await dialog.getByText('llm_binding', { exact: true }).waitFor();
  await dialog.getByText('Working directory', { exact: true }).waitFor();
  await ctx.screenshot('status');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
}

/** Every page at phone width: no horizontal scrolling. */
export async function narrowScreens(page, ctx) {
  const size = page.viewportSize();
  await page.setViewportSize({ width: 390, height: 844 });
  for (const tab of ['documents', 'graph', 'retrieval', 'api']) {
    await page.getByTestId(`tab-${tab}`).click();
    await page.waitForTimeout(300);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `${tab} scrolls horizontally at 390 px (${overflow} px too wide)`);
    await ctx.screenshot(`phone-${tab}`);
  }
  if (size) await page.setViewportSize(size);
}

/** The theme toggle switches to dark and back; every page renders in dark. */
export async function darkTheme(page, ctx) {
  const theme = () => page.evaluate(() => document.documentElement.dataset.theme);
  const start = await theme();
  for (let i = 0; i < 3 && (await theme()) !== 'dark'; i++) await page.getByTestId('theme-toggle').click();
  assert.equal(await theme(), 'dark');
  for (const tab of ['documents', 'graph', 'retrieval']) {
    await page.getByTestId(`tab-${tab}`).click();
    await page.waitForTimeout(300);
    await ctx.screenshot(`dark-${tab}`);
  }
  for (let i = 0; i < 3 && (await theme()) !== start; i++) await page.getByTestId('theme-toggle').click();
}

/** Keyboard focus is visible: Tab onto the first tab link shows an outline. */
export async function focusVisible(page) {
  await page.locator('body').click({ position: { x: 5, y: 300 } }).catch(() => undefined);
  await page.getByTestId('tab-documents').focus();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Shift+Tab');
  const outline = await page.evaluate(() => {
    const el = document.activeElement;
    return el ? getComputedStyle(el).outlineStyle : 'none';
  });
  assert.notEqual(outline, 'none', 'the focused element shows an outline');
}

/** Log out: with accounts, back to the login form. */
export async function logout(page, account) {
  if (!account) return;
  await page.getByTestId('logout').click();
  await page.locator('input[name=username]').waitFor();
}

/**
 * The language picker: Simplified Chinese shows the header, tabs and the documents page in
 * Chinese, <html lang> follows, no raw message key shows anywhere, and the choice survives a
 * reload; then back to English.
 */
export async function switchLanguage(page, ctx, keys) {
  await page.getByTestId('tab-documents').click();
  const select = page.getByTestId('language-select');
  await select.selectOption('zh-CN');
  await page.getByTestId('tab-documents').getByText('文档', { exact: true }).first().waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
  await page.getByTestId('tab-graph').getByText('知识图谱', { exact: true }).waitFor();
  await page.getByTestId('docs-upload').getByText('上传').waitFor();
  await page.getByTestId('docs-pipeline-toggle').getByText('处理流水线').waitFor();
  const rawKeys = async () => {
    const text = await page.evaluate(() => document.body.innerText);
    return keys.filter((k) => text.includes(k));
  };
  assert.deepEqual(await rawKeys(), [], 'no raw message key on the documents page');
  await ctx.screenshot('zh-CN-documents');
  for (const tab of ['graph', 'retrieval']) {
    await page.getByTestId(`tab-${tab}`).click();
    await page.waitForTimeout(300);
    assert.deepEqual(await rawKeys(), [], `no raw message key on the ${tab} page`);
    await ctx.screenshot(`zh-CN-${tab}`);
  }
  await page.getByTestId('chat-send').getByText('发送').waitFor();
  await page.reload();
  await page.getByTestId('tab-documents').getByText('文档', { exact: true }).first().waitFor();
  assert.equal(await page.getByTestId('language-select').inputValue(), 'zh-CN', 'the choice is remembered');
  await page.getByTestId('language-select').selectOption('en');
  await page.getByTestId('tab-documents').getByText('Documents', { exact: true }).waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
  await page.getByTestId('tab-documents').click();
}

/**
 * Arabic: <html dir="rtl">, the header and pages in Arabic with no raw key, nothing wider than
 * the window on each page, the tabs laid out from the right; then back to English.
 */
export async function rightToLeft(page, ctx, keys) {
  await page.getByTestId('tab-documents').click();
  await page.getByTestId('language-select').selectOption('ar');
  await page.getByTestId('tab-documents').getByText('المستندات', { exact: true }).first().waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.dir), 'rtl');
  const tabs = await page.getByTestId('tab-documents').boundingBox();
  const api = await page.getByTestId('tab-api').boundingBox();
  assert.ok(tabs && api && tabs.x > api.x, 'the first tab is on the right');
  for (const tab of ['documents', 'graph', 'retrieval']) {
    await page.getByTestId(`tab-${tab}`).click();
    await page.waitForTimeout(300);
    const text = await page.evaluate(() => document.body.innerText);
    assert.deepEqual(keys.filter((k) => text.includes(k)), [], `no raw message key on the ${tab} page`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `${tab} scrolls horizontally right to left (${overflow} px too wide)`);
    await ctx.screenshot(`ar-${tab}`);
  }
  await page.getByTestId('language-select').selectOption('en');
  await page.getByTestId('tab-documents').getByText('Documents', { exact: true }).waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.dir), 'ltr');
  await page.getByTestId('tab-documents').click();
}
