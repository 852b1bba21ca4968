// The browser tests: the real `lightrag serve` (release build, or LIGHTRAG_BIN) and the scripted LLM server, driven
// through Debian's Chromium. Three runs: with accounts (login), in guest mode behind an API
// prefix, and with LIGHTRAG_API_KEY (the master key, an owner: the members page and keys of
// issue 30). Screenshots of every page go to $WEBUI_E2E_ARTIFACTS (default target/webui-e2e).
//
//   node e2e/run.mjs            (scripts/test.sh runs it with the debug binaries `cargo test` built)
//   node e2e/run.mjs --only auth|guest|roles   --headed-slowmo=N (debugging)
//   WEBUI_DIST=/tmp/ui node e2e/run.mjs   the UI of a build folder (npx vite build --outDir /tmp/ui)
//                                        instead of the one embedded in the binary (e2e/overlay.mjs)
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { installMarkupSpy, launch, watchProblems } from './browser.mjs';
import { startStack } from './stack.mjs';
import * as app from './steps/app.mjs';
import * as documents from './steps/documents.mjs';
import * as graph from './steps/graph.mjs';
import * as members from './steps/members.mjs';
import * as retrieval from './steps/retrieval.mjs';

const repo = resolve(import.meta.dirname, '..', '..');
const artifactsRoot = process.env.WEBUI_E2E_ARTIFACTS ?? join(repo, 'target', 'webui-e2e');
const only = (() => {
  const i = process.argv.indexOf('--only');
  return i >= 0 ? process.argv[i + 1] : null;
})();

/** Every message key of the English catalog (a raw key on screen means a missing translation). */
function messageKeys() {
  const out = [];
  const walk = (v, prefix) => {
    if (typeof v === 'string') out.push(prefix.replace(/_(one|other)$/, ''));
    else for (const [k, x] of Object.entries(v)) walk(x, prefix ? `${prefix}.${k}` : k);
  };
  walk(JSON.parse(readFileSync(join(import.meta.dirname, '..', 'src', 'i18n', 'locales', 'en.json'), 'utf8')), '');
  return [...new Set(out)];
}

const MASTER_KEY = 'e2e-master-key-0123456789';

const RUNS = [
  {
    name: 'auth',
    account: { username: 'admin', password: 'admin-pw' },
    env: { AUTH_ACCOUNTS: 'admin:admin-pw', TOKEN_SECRET: 'e2e-secret-0123456789abcdef0123456789' },
    prefix: '',
  },
  { name: 'guest', account: null, env: { LIGHTRAG_API_PREFIX: '/kb' }, prefix: '/kb' },
  { name: 'roles', account: null, masterKey: MASTER_KEY, env: { LIGHTRAG_API_KEY: MASTER_KEY }, prefix: '' },
];

/** fetch with the credentials a browser session of this run would have. */
async function apiFor(stack, run) {
  let token;
  if (run.masterKey) {
    token = run.masterKey;
  } else if (run.account) {
    const r = await fetch(`${stack.url}/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(run.account).toString(),
    });
    assert.equal(r.status, 200, 'login for the API helper');
    token = (await r.json()).access_token;
  } else {
    token = (await (await fetch(`${stack.url}/auth-status`)).json()).access_token;
  }
  return async (method, path, body) => {
    const r = await fetch(`${stack.url}${run.prefix}${path}`, {
      method,
      headers: {
        ...(run.masterKey ? { 'X-API-Key': token } : { Authorization: `Bearer ${token}` }),
        ...(body ? { 'Content-Type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await r.text();
    if (!r.ok) throw new Error(`${method} ${path} → ${r.status}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
}

async function step(name, fn) {
  const t0 = Date.now();
  process.stdout.write(`  ${name} … `);
  await fn();
  process.stdout.write(`ok (${((Date.now() - t0) / 1000).toFixed(1)} s)\n`);
}

async function runOne(browser, run) {
  const artifacts = join(artifactsRoot, run.name);
  mkdirSync(artifacts, { recursive: true });
  const logs = [];
  const stack = await startStack({ env: run.env, log: (s) => logs.push(s) });
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  await installMarkupSpy(context);
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const watch = watchProblems(page);
  const ctx = {
    url: `${stack.url}${run.prefix}`,
    webuiUrl: `${stack.url}${run.prefix}/webui/`,
    stack,
    artifacts,
    watch,
    api: await apiFor(stack, run),
    screenshot: (name) => page.screenshot({ path: join(artifacts, `${name}.png`) }),
  };
  console.log(`run "${run.name}": ${ctx.webuiUrl}`);
  // every non-owner's header asks GET /admin/grants whether to offer the members page: a 403
  ctx.watch.expect(/403[\s\S]*\/admin\/grants\b/);
  try {
    if (run.masterKey) {
      await runRoles(page, ctx, run);
      const problems = watch.take();
      assert.deepEqual(problems, [], `the page reported problems:\n${problems.join('\n')}`);
      return;
    }
    await step('open and log in', () => app.openAndLogin(page, ctx, run.account));
    await step('status dialog', () => app.statusDialog(page, ctx));
    await step('upload two files of different formats', () => documents.uploadTwoFiles(page, ctx));
    await step('documents reach processed', () => documents.waitProcessed(page, ctx));
    await step('graph from the label autocomplete', () => graph.openGraphFromAutocomplete(page, ctx, documents.SHARED_ENTITY.slice(0, 3), documents.SHARED_ENTITY));
    await step('node properties and source chunk', () => graph.openNodeSources(page, ctx, documents.SHARED_ENTITY));
    await step('edit a description', () => graph.editDescription(page, ctx, documents.SHARED_ENTITY, `Edited in the ${run.name} run.`));
    await step('question in auto mode (the default), streamed', () => retrieval.askQuestion(page, ctx, { mode: 'auto', question: `Who worked with ${documents.SHARED_ENTITY}?` }));
    await step('question in mix mode, streamed', () => retrieval.askQuestion(page, ctx, { mode: 'mix', question: `Who worked with ${documents.SHARED_ENTITY}?` }));
    await step('question in local mode, streamed', () => retrieval.askQuestion(page, ctx, { mode: 'local', question: `What is known about ${documents.SHARED_ENTITY}?` }));
    await step('why this answer', () => retrieval.openWhyPanel(page, ctx));
    await step("the answer's records in the graph", () => retrieval.showAnswerInGraph(page, ctx));
    await step('delete a document', () => documents.deleteDocument(page, ctx, documents.DELETED_FILE));
    await step('its exclusive entities are gone', () => graph.expectEntitiesGone(page, ctx, documents.EXCLUSIVE_ENTITIES));
    await step('the UI in Simplified Chinese, and back', () => app.switchLanguage(page, ctx, messageKeys()));
    await step('the UI in Arabic, right to left', () => app.rightToLeft(page, ctx, messageKeys()));
    await step('keyboard focus is visible', () => app.focusVisible(page));
    await step('dark theme', () => app.darkTheme(page, ctx));
    await step('phone width', () => app.narrowScreens(page, ctx));
    await step('an answer renders untrusted HTML safely', () => retrieval.untrustedAnswer(page, ctx));
    await step('math and a Mermaid diagram in an answer, safely', () => retrieval.mathAndDiagrams(page, ctx));
    await step('log out', () => app.logout(page, run.account));
    const problems = watch.take();
    assert.deepEqual(problems, [], `the page reported problems:\n${problems.join('\n')}`);
  } catch (e) {
    await ctx.screenshot('failure').catch(() => undefined);
    console.error(`\nrun "${run.name}" failed; server log:\n${logs.join('').slice(-4000)}`);
    throw e;
  } finally {
    await context.close();
    await stack.stop();
  }
}

/** The "roles" run: the members page of a workspace (issue 30). */
async function runRoles(page, ctx, run) {
  // before the key is given, the UI's first requests are refused with "API Key required"
  ctx.watch.expect(/403[\s\S]*\/(health|workspaces|documents|admin)/);
  // the editor's look at a workspace it has no role in (team_b)
  ctx.watch.expect(/404[\s\S]*\/(health|documents|graph|workspaces)/);
  // the UI's requests with the revoked key
  ctx.watch.expect(/401[\s\S]*\/(health|documents|graph|workspaces|admin)/);
  await step('open with the master key', () => members.loginWithApiKey(page, ctx, run.masterKey));
  await step("the owner's picker lists both workspaces", () => members.ownerSeesBoth(page, ctx, run.masterKey));
  let editorKey = '';
  await step('members page: create keys (shown once), list, revoke', async () => {
    editorKey = await members.manageKeys(page, ctx);
  });
  await step('members page at phone width', () => members.membersOnPhone(page, ctx));
  await step('an editor of team_a sees only team_a in the picker', () => members.editorSeesOnlyItsWorkspace(page, ctx, editorKey));
  await step('its key revoked, the UI asks for another', () => members.revokedKeyAsksAgain(page, ctx, run.masterKey));
}

const browser = await launch();
try {
  for (const run of RUNS) {
    if (only && run.name !== only) continue;
    await runOne(browser, run);
  }
  console.log(`web UI browser tests passed; screenshots in ${artifactsRoot}`);
} finally {
  await browser.close();
}
