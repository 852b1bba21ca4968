// Steps of the Retrieval page: ask a question in a mode and watch the answer stream in with its
// references; open "Why this answer" and see what was retrieved and what it cost.
//
// The stack's scripted LLM pauses between the pieces of a streamed answer (--stream-delay-ms),
// so the answer really arrives over time through `lightrag serve`.
import assert from 'node:assert/strict';
import { handlerMarkup } from '../browser.mjs';

const FINISHED = ['done', 'stopped', 'error'];

/** Opens the retrieval page and makes sure the query settings are visible. */
async function openSettings(page) {
  await page.getByTestId('tab-retrieval').click();
  await page.getByTestId('retrieval-page').waitFor();
  const panel = page.getByTestId('chat-settings');
  if (!(await panel.isVisible())) await page.getByTestId('chat-settings-toggle').click();
  await panel.waitFor();
  return panel;
}

/** Closes the settings when they are a drawer over the conversation (narrow screens). */
async function closeDrawer(page) {
  const backdrop = page.locator('.chat-backdrop');
  if (await backdrop.isVisible()) {
    await page.keyboard.press('Escape');
    await page.getByTestId('chat-settings').waitFor({ state: 'hidden' });
  }
}

/** The file paths of the server's documents. */
async function documentPaths(ctx) {
  const { statuses } = await ctx.api('GET', '/documents');
  return Object.values(statuses ?? {}).flat().map((d) => d.file_path);
}

/**
 * Asks `question` in `mode` (chosen in the settings panel), asserts the answer grows while it
 * streams (at least two different non-empty lengths seen before it ends), ends non-empty
 * (containing `expectInAnswer` when given), and lists a reference to an uploaded document.
 */
export async function askQuestion(page, ctx, { mode, question, expectInAnswer } = {}) {
  assert.ok(question, 'askQuestion needs a question');
  const panel = await openSettings(page);
  if (mode) {
    await panel.getByTestId('retrieval-mode').selectOption(mode);
    assert.equal(await page.getByTestId('retrieval-mode-quick').inputValue(), mode, 'the quick mode picker follows');
  }
  // streamed answers (the settings persist, an earlier test may have changed them)
  const stream = panel.getByTestId('qs-stream');
  if (!(await stream.isChecked())) await stream.check();
  await closeDrawer(page);

  const answers = page.getByTestId('answer');
  const before = await answers.count();
  const input = page.getByTestId('chat-input');
  await input.fill(question);

  // Record every length the newest answer's text takes on screen, from the first mutation on.
  await page.evaluate((index) => {
    const seen = [];
    window.__retrievalLengths = seen;
    const observer = new MutationObserver(() => {
      const answer = document.querySelectorAll('[data-testid="answer"]')[index];
      const text = answer?.querySelector('[data-testid="answer-text"]')?.textContent ?? '';
      if (text.length > 0 && seen.at(-1) !== text.length) seen.push(text.length);
      if (answer && ['done', 'stopped', 'error'].includes(answer.getAttribute('data-status') ?? '')) observer.disconnect();
    });
    observer.observe(document.querySelector('[data-testid="retrieval-page"]'), {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
    });
  }, before);

  await input.press('Enter');
  await answers.nth(before).waitFor();
  assert.equal(await input.inputValue(), '', 'the composer is emptied once the question is sent');
  await page.getByTestId('chat-stop').waitFor();
  await page.waitForFunction(
    ({ index, finished }) => {
      const a = document.querySelectorAll('[data-testid="answer"]')[index];
      return a && finished.includes(a.getAttribute('data-status') ?? '');
    },
    { index: before, finished: FINISHED },
    { timeout: 90_000, polling: 100 },
  );

  const answer = answers.nth(before);
  const status = await answer.getAttribute('data-status');
  if (status === 'error') {
    const error = await answer.getByTestId('answer-error').textContent();
    assert.fail(`the answer failed: ${error}`);
  }
  assert.equal(status, 'done');
  const lengths = await page.evaluate(() => window.__retrievalLengths ?? []);
  assert.ok(
    new Set(lengths).size >= 2,
    `the answer should grow while it streams; lengths seen: ${JSON.stringify(lengths)}`,
  );
  const text = (await answer.getByTestId('answer-text').textContent()) ?? '';
  assert.ok(text.trim().length > 0, 'the answer is not empty');
  if (expectInAnswer) assert.ok(text.includes(expectInAnswer), `the answer mentions "${expectInAnswer}": ${text}`);
  // the mode of the answer is the one chosen
  if (mode) {
    const badge = (await answer.locator('.chat-mode').textContent())?.toLowerCase();
    assert.equal(badge, mode, 'the answer shows its mode');
  }

  const refs = answer.getByTestId('answer-reference');
  assert.ok((await refs.count()) > 0, 'the answer lists references');
  const refText = (await refs.allTextContents()).join('\n');
  const paths = await documentPaths(ctx);
  assert.ok(
    paths.some((p) => refText.includes(p)),
    `a reference names an uploaded document (references: ${refText}; documents: ${paths.join(', ')})`,
  );
  await page.getByTestId('chat-send').waitFor();
}

/**
 * Opens "Why this answer" of the last answer: it lists the retrieved entities and chunks, and
 * the tokens of the query when the server sends a trace. Takes the `retrieval` screenshot.
 */
export async function openWhyPanel(page, ctx) {
  await page.getByTestId('tab-retrieval').click();
  const answer = page.getByTestId('answer').last();
  await answer.waitFor();
  const toggle = answer.getByTestId('answer-why');
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  const panel = answer.getByTestId('why-panel');
  await panel.waitFor();

  // entities (the default tab), once the records are there
  await panel.getByTestId('why-entity').first().waitFor({ timeout: 30_000 });
  const entities = await panel.getByTestId('why-entity').count();
  assert.ok(entities > 0, 'the panel lists entities');
  // the first entity expands to its description
  await panel.getByTestId('why-entity').first().locator('summary').click();
  await panel.getByTestId('why-entity').first().locator('.why-text').first().waitFor();

  await panel.getByTestId('why-tab-chunks').click();
  await panel.getByTestId('why-chunk').first().waitFor();
  assert.ok((await panel.getByTestId('why-chunk').count()) > 0, 'the panel lists chunks');

  // the query's usage, from the trace the server sends with the answer
  await panel.getByTestId('why-tab-usage').click();
  const total = panel.getByTestId('why-usage').getByTestId('usage-total');
  await total.waitFor();
  const cells = await total.locator('td, th').allTextContents();
  const numbers = cells.slice(1).map((c) => Number(c.replace(/[^0-9.]/g, '')));
  assert.ok(numbers.some((n) => n > 0), `usage numbers are shown: ${cells.join(' | ')}`);
  // for the screenshot: the entities, the first one open, with the answer above them
  await panel.getByTestId('why-tab-entities').click();
  await panel.getByTestId('why-entity').first().locator('summary').click();
  await panel.getByTestId('why-entity').first().locator('.why-text').first().waitFor();
  await answer.evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await page.mouse.move(0, 0);
  await ctx.screenshot('retrieval');
}

/**
 * "Show in graph" in the last answer's panel: the graph page opens with the answer's entities (and
 * its relations' endpoints) highlighted — the banner counts them, none missing from the drawing.
 */
export async function showAnswerInGraph(page, ctx) {
  await page.getByTestId('tab-retrieval').click();
  const answer = page.getByTestId('answer').last();
  const toggle = answer.getByTestId('answer-why');
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  const panel = answer.getByTestId('why-panel');
  await panel.getByTestId('why-entity').first().waitFor({ timeout: 30_000 });
  const wanted = await panel.getByTestId('why-entity').count();
  await panel.getByTestId('why-show-in-graph').click();
  await page.getByTestId('graph-page').waitFor();
  const banner = page.getByTestId('graph-highlight');
  await banner.waitFor();
  const text = (await banner.textContent()) ?? '';
  const shown = Number(/Highlighting (\d+) entit/.exec(text)?.[1] ?? 0);
  // the answer's entities, and the endpoints of its relations
  assert.ok(shown >= wanted, `the graph highlights the answer's entities: "${text}" (panel: ${wanted})`);
  assert.ok(!/not in this graph/.test(text), `every highlighted entity is drawn: "${text}"`);
  await ctx.screenshot('graph-highlight');
  await banner.getByRole('button', { name: 'Clear highlight' }).click();
  await banner.waitFor({ state: 'hidden' });
}

/**
 * An answer is untrusted text (the LLM quotes documents and can be steered by them): in bypass
 * mode the scripted LLM repeats the question, so a question full of active HTML comes back as the
 * answer. The rendered answer keeps the Markdown but nothing that runs, fetches from another host,
 * restyles the page or opens a link with access to it.
 */
export async function untrustedAnswer(page, ctx) {
  const evil = 'http://127.0.0.1:9';
  const fetched = [];
  const onRequest = (req) => {
    if (req.url().startsWith(evil)) fetched.push(req.url());
  };
  page.on('request', onRequest);
  try {
    const panel = await openSettings(page);
    await panel.getByTestId('retrieval-mode').selectOption('bypass');
    await closeDrawer(page);
    // the scripted LLM repeats at most 200 characters: one kind of attack per question
    const questions = [
      `Check **bold** [a link](https://example.org/doc) [js](javascript:alert(1)) <img src="${evil}/i" onerror="alert(1)">`,
      `<video poster="${evil}/p.png" src="${evil}/v.mp4"></video> <audio src="${evil}/a.mp3" autoplay></audio>`,
      `<picture><source srcset="${evil}/s.png"></picture> <table background="${evil}/b.png"><tr><td>c</td></tr></table>`,
      `<a href="https://example.org/" ping="${evil}/p" target="_top">ping</a> <details open ontoggle="alert(1)"><summary>s</summary>d</details>`,
      '<div class="docs-drop-overlay" id="root" style="position:fixed;inset:0" data-testid="tab-graph" onclick="alert(1)">cover</div>',
    ];
    const answers = page.getByTestId('answer');
    const report = { tags: [], attrs: [], links: [], strong: null };
    for (const question of questions) {
      const before = await answers.count();
      await page.getByTestId('chat-input').fill(question);
      await page.getByTestId('chat-input').press('Enter');
      const answer = answers.nth(before);
      await page.waitForFunction(
        ({ index, finished }) => {
          const a = document.querySelectorAll('[data-testid="answer"]')[index];
          return a && finished.includes(a.getAttribute('data-status') ?? '');
        },
        { index: before, finished: FINISHED },
        { timeout: 60_000, polling: 100 },
      );
      assert.equal(await answer.getAttribute('data-status'), 'done');
      const one = await answer.locator('.chat-md').evaluate((el) => {
        const all = [...el.querySelectorAll('*')];
        return {
          tags: all.map((n) => n.tagName.toLowerCase()),
          attrs: all.flatMap((n) => [...n.attributes].map((a) => a.name)),
          links: [...el.querySelectorAll('a')].map((a) => ({ href: a.getAttribute('href'), target: a.target, rel: a.rel })),
          strong: el.querySelector('strong')?.textContent ?? null,
        };
      });
      report.tags.push(...one.tags);
      report.attrs.push(...one.attrs);
      report.links.push(...one.links);
      report.strong ??= one.strong;
      // the question is shown as typed, as text
      const asked = page.getByTestId('question').last();
      assert.ok(((await asked.textContent()) ?? '').includes(question), 'the question is shown as typed');
      assert.equal(await asked.locator('a, img, video, audio, picture, table, details, .docs-drop-overlay').count(), 0, 'the question is text');
    }
    report.tags = [...new Set(report.tags)];
    report.attrs = [...new Set(report.attrs)];
    assert.equal(report.strong, 'bold', 'Markdown is still rendered');
    for (const tag of ['img', 'video', 'audio', 'source', 'picture', 'script', 'style', 'iframe', 'object', 'embed']) {
      assert.ok(!report.tags.includes(tag), `no <${tag}> in an answer (tags: ${report.tags.join(' ')})`);
    }
    const allowedAttrs = ['href', 'target', 'rel', 'title', 'open', 'align'];
    const extra = report.attrs.filter((a) => !allowedAttrs.includes(a));
    assert.deepEqual(extra, [], `no other attributes (on*, style, id, class, data-*, background, poster, ping…): ${extra}`);
    for (const link of report.links) {
      if (link.href === null) continue;
      assert.ok(!/^\s*javascript:/i.test(link.href), `no javascript: link (${link.href})`);
      assert.equal(link.target, '_blank', `links open in a new tab (${link.href})`);
      assert.match(link.rel, /noopener/, `links have no access to this page (${link.href})`);
    }
    assert.ok(report.links.some((l) => l.href === 'https://example.org/doc'), 'the Markdown link is kept');
    assert.deepEqual(fetched, [], 'nothing was fetched from another host');
    // no hostile markup reached an HTML parser (Chromium ≥ 156 logs a CSP violation for every
    // inline handler it parses, even into DOMPurify's inert document)
    assert.deepEqual(await handlerMarkup(page), [], 'untrusted markup with handlers reached an HTML parser');
  } finally {
    page.off('request', onRequest);
  }
}

/** Asks a question in bypass mode (the scripted LLM repeats it) and waits for the answer. */
async function echoAnswer(page, question) {
  const answers = page.getByTestId('answer');
  const before = await answers.count();
  await page.getByTestId('chat-input').fill(`/bypass ${question}`);
  await page.getByTestId('chat-input').press('Enter');
  await page.waitForFunction(
    ({ index, finished }) => {
      const a = document.querySelectorAll('[data-testid="answer"]')[index];
      return a && finished.includes(a.getAttribute('data-status') ?? '');
    },
    { index: before, finished: FINISHED },
    { timeout: 60_000, polling: 100 },
  );
  const answer = answers.nth(before);
  assert.equal(await answer.getAttribute('data-status'), 'done');
  return answer;
}

/** What an answer holds that could run or navigate: handlers, script/img/iframe, javascript: links. */
async function activeContent(answer) {
  return answer.locator('.chat-md').evaluate((el) => {
    const all = [...el.querySelectorAll('*')];
    return [
      ...all.flatMap((n) => [...n.attributes].filter((a) => /^on/i.test(a.name)).map((a) => `${n.tagName}[${a.name}]`)),
      ...all.filter((n) => /^(script|img|iframe|object|embed|foreignobject)$/i.test(n.tagName)).map((n) => n.tagName),
      ...all
        .filter((n) => /javascript:/i.test(n.getAttribute('href') ?? '') || /javascript:/i.test(n.getAttribute('xlink:href') ?? ''))
        .map((n) => `${n.tagName} javascript: link`),
    ];
  });
}

/**
 * Math (KaTeX, inline and block) and a Mermaid diagram render in an answer, and neither lets an
 * answer inject anything: a \href to javascript:, an HTML label and a click callback stay inert.
 */
export async function mathAndDiagrams(page, ctx) {
  const dialogs = [];
  const onDialog = (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  };
  page.on('dialog', onDialog);
  try {
    const math = await echoAnswer(page, 'Energy $E=mc^2$, costs $5 and $10, $$\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}$$ and $\\href{javascript:alert(1)}{x}$');
    await math.locator('.chat-md .katex').first().waitFor();
    assert.ok((await math.locator('.chat-md .katex').count()) >= 3, 'inline and display math are rendered');
    assert.equal(await math.locator('.chat-md .katex-display').count(), 1, 'the $$ block is display math');
    assert.ok(((await math.locator('.chat-md').textContent()) ?? '').includes('$5 and $10'), 'dollar amounts stay text');
    assert.deepEqual(await activeContent(math), [], 'the math holds nothing active');
    await ctx.screenshot('answer-math');

    // the scripted LLM folds white space, so this answer (a fenced block needs lines) is served
    // by the browser test itself, as /query/stream would send it
    const hostile = [
      'A diagram:',
      '',
      '```mermaid',
      '%%{init: {"securityLevel": "loose", "flowchart": {"htmlLabels": true}}}%%',
      'graph TD',
      '  A[Start] --> B["<img src=x onerror=alert(1)>"]',
      '  B --> C{{"<a href=javascript:alert(2)>go</a>"}}',
      '  click A href "javascript:alert(3)"',
      '  click B call alert(4)',
      '```',
    ].join('\n');
    await page.route('**/query/stream', (route) =>
      route.fulfill({ status: 200, contentType: 'application/x-ndjson', body: `${JSON.stringify({ response: hostile })}\n` }),
    );
    let diagram;
    try {
      diagram = await echoAnswer(page, 'Draw the flow.');
    } finally {
      await page.unroute('**/query/stream');
    }
    await diagram.locator('.chat-md .chat-diagram svg').waitFor();
    assert.deepEqual(await activeContent(diagram), [], 'the diagram holds nothing active');
    await diagram.locator('.chat-md .chat-diagram svg').click().catch(() => undefined);
    await page.waitForTimeout(300);
    assert.deepEqual(dialogs, [], 'nothing in an answer ran script');
    await ctx.screenshot('answer-mermaid');
  } finally {
    page.off('dialog', onDialog);
  }
}
