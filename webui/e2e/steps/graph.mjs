// Steps of the Knowledge Graph page: open a label from the server's autocomplete, a node's
// properties and source chunks (the name marked in the chunk text), edit a description (checked
// through the API), and entities gone after their document was deleted.
//
// Assumptions: documents mentioning the entities are indexed (processed) before the first step;
// the steps run in this order on one page: openGraphFromAutocomplete → openNodeSources →
// editDescription → (documents deleted elsewhere) → expectEntitiesGone.
import assert from 'node:assert/strict';

const q = encodeURIComponent;

async function openGraphTab(page) {
  await page.getByTestId('tab-graph').click();
  await page.getByTestId('graph-page').waitFor();
}

/** Waits until the page shows a loaded graph (not loading), and returns its node count. */
async function settled(page) {
  await page.locator('[data-testid="graph-page"][data-status="ready"]').waitFor({ timeout: 30_000 });
  return Number(await page.getByTestId('graph-node-count').getAttribute('data-count'));
}

/** Waits for the label combobox to have answered for what is typed in it. */
async function suggestions(page, testId) {
  const list = page.getByTestId(`${testId}-options`);
  await list.waitFor();
  await page.locator(`[data-testid="${testId}-options"][data-loading="false"]`).waitFor();
  return list;
}

/**
 * Types `typed` into the label box, picks `expected` among the server's suggestions, and sees the
 * graph of that label rendered (node count from the page, compared with the API's answer).
 */
export async function openGraphFromAutocomplete(page, ctx, typed, expected) {
  await openGraphTab(page);
  const suggested = await ctx.api('GET', `/graph/label/search?q=${q(typed)}&limit=50`);
  assert.ok(suggested.includes(expected), `the server suggests ${expected} for "${typed}": ${JSON.stringify(suggested)}`);

  const input = page.getByTestId('graph-label-input');
  await input.fill('');
  await input.pressSequentially(typed, { delay: 30 });
  const list = await suggestions(page, 'graph-label-input');
  const option = list.locator(`[role="option"][data-value="${expected}"]`);
  await option.waitFor();
  await option.click();

  await page.locator(`[data-testid="graph-page"][data-label="${expected}"]`).waitFor();
  const count = await settled(page);
  assert.ok(count >= 2, `the graph of ${expected} has nodes (${count})`);
  assert.equal(await input.inputValue(), expected);
  const depth = Number(await page.getByTestId('graph-depth').inputValue());
  const maxNodes = Number(await page.getByTestId('graph-max-nodes').inputValue());
  const answer = await ctx.api('GET', `/graphs?label=${q(expected)}&max_depth=${depth}&max_nodes=${maxNodes}`);
  assert.equal(count, answer.nodes.length, 'the page shows the nodes the server answered');
  assert.ok(answer.nodes.some((n) => n.id === expected));
  // the legend lists the entity types of the loaded graph
  await page.getByTestId('graph-legend').waitFor();
}

/** Selects a loaded node through the in-page node search; its properties panel opens. */
async function selectNode(page, name) {
  const panelTitle = page.getByTestId('graph-properties-title');
  if ((await panelTitle.count()) > 0 && (await panelTitle.innerText()) === name) return;
  const search = page.getByTestId('graph-node-search');
  await search.fill('');
  await search.pressSequentially(name.slice(0, Math.min(name.length, 6)), { delay: 30 });
  const option = page.getByTestId('graph-node-search-options').locator(`[role="option"][data-value="${name}"]`);
  await option.waitFor();
  await option.click();
  await page.locator('[data-testid="graph-properties-title"]', { hasText: name }).waitFor();
}

/**
 * Selects `name` with the node search, opens its properties and its Sources: a chunk's text is
 * shown with the name marked. Takes the "graph" screenshot with the panel open.
 */
export async function openNodeSources(page, ctx, name) {
  await selectNode(page, name);
  const panel = page.getByTestId('graph-properties');
  assert.equal(await panel.getByTestId('graph-properties-title').innerText(), name);
  await panel.getByTestId('graph-description').waitFor();
  assert.ok((await panel.getByTestId('graph-relations').locator('li').count()) >= 1, `${name} shows its relations`);

  await panel.getByTestId('graph-open-sources').click();
  const dialog = page.getByTestId('graph-sources');
  const body = dialog.locator('[data-testid="graph-sources-body"][data-state="ready"]');
  await body.waitFor();
  const fallback = (await body.getAttribute('data-fallback')) === 'true';
  assert.equal(fallback, false, 'the server lists the chunks an entity comes from (GET /graph/entity/sources)');
  const chunk = dialog.getByTestId('graph-chunk-text').first();
  await chunk.waitFor();
  const text = await chunk.innerText();
  assert.match(text, new RegExp(name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i'), 'the chunk mentions the entity');
  const marks = await chunk.locator('mark').allInnerTexts();
  assert.ok(
    marks.some((m) => m.toLowerCase().replace(/\s+/g, ' ') === name.toLowerCase()),
    `the name is marked in the chunk (marks: ${JSON.stringify(marks)})`,
  );
  assert.ok((await dialog.getByTestId('graph-sources-docs').locator('li').count()) >= 1, 'the source documents are listed');
  await ctx.screenshot('graph-sources');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  await panel.waitFor();
  await ctx.screenshot('graph');
}

/**
 * Edits `name`'s description in the UI; the panel shows the new text and the API returns it.
 */
export async function editDescription(page, ctx, name, text) {
  await selectNode(page, name);
  const panel = page.getByTestId('graph-properties');
  const edit = panel.getByTestId('graph-edit');
  // edits are refused while the pipeline works: the button waits for it
  await page.waitForFunction(() => !document.querySelector('[data-testid="graph-properties"] [data-testid="graph-edit"]')?.disabled, null, {
    timeout: 60_000,
  });
  await edit.click();
  const dialog = page.getByTestId('graph-edit-entity');
  const field = dialog.getByTestId('graph-edit-description');
  await field.waitFor();
  assert.equal(await dialog.getByTestId('graph-edit-name').inputValue(), name);
  await field.fill(text);
  await dialog.getByTestId('graph-edit-save').click();
  await dialog.waitFor({ state: 'hidden' });
  await panel.getByTestId('graph-description').filter({ hasText: text }).waitFor();

  const answer = await ctx.api('GET', `/graphs?label=${q(name)}&max_depth=1`);
  const node = answer.nodes.find((n) => n.id === name);
  assert.ok(node, `${name} is still in the graph`);
  assert.equal(node.properties.description, text, 'the description was saved');
}

/**
 * After their document was deleted, `names` no longer exist (API), are not suggested by the
 * label box, and are not in a freshly loaded whole graph.
 */
export async function expectEntitiesGone(page, ctx, names) {
  for (const name of names) {
    const { exists } = await ctx.api('GET', `/graph/entity/exists?name=${q(name)}`);
    assert.equal(exists, false, `${name} still exists`);
  }
  await openGraphTab(page);
  const input = page.getByTestId('graph-label-input');
  for (const name of names) {
    await input.fill('');
    await input.pressSequentially(name, { delay: 20 });
    const list = await suggestions(page, 'graph-label-input');
    assert.equal(await list.locator(`[role="option"][data-value="${name}"]`).count(), 0, `${name} is still suggested`);
  }
  // reload the whole graph: none of them is drawn
  await input.fill('*');
  await input.press('Enter');
  await page.locator('[data-testid="graph-page"][data-label="*"]').waitFor();
  const count = await settled(page);
  assert.ok(count >= 1, 'the whole graph still has the other entities');
  for (const name of names) {
    const search = page.getByTestId('graph-node-search');
    await search.fill(name);
    const list = page.getByTestId('graph-node-search-options');
    await list.waitFor();
    assert.equal(await list.locator(`[role="option"][data-value="${name}"]`).count(), 0, `${name} is still drawn`);
  }
  await page.getByTestId('graph-node-search').fill('');
  await page.keyboard.press('Escape');
}
