// Starts what the browser tests (and UI development) talk to: the scripted OpenAI-compatible
// LLM server and a real `lightrag serve` configured to use it, each on a free loopback port, in a
// fresh working directory. Both are stopped by `stop()` (and when this process exits).
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { startOverlay } from './overlay.mjs';

const repo = resolve(import.meta.dirname, '..', '..');

/** The release binaries by default; LIGHTRAG_BIN / SCRIPTED_LLM_BIN override (scripts/test.sh points them at its debug builds). */
export function binaries() {
  const target = process.env.CARGO_TARGET_DIR ?? join(repo, 'target');
  return {
    lightrag: process.env.LIGHTRAG_BIN ?? join(target, 'release', 'lightrag'),
    scripted: process.env.SCRIPTED_LLM_BIN ?? join(target, 'release', 'scripted-llm'),
  };
}

export function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

const children = new Set();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

function track(child, name, log) {
  children.add(child);
  child.on('exit', () => children.delete(child));
  child.stderr?.on('data', (d) => log?.(`[${name}] ${d}`));
}

// Streamed answers arrive piece by piece, 25 ms apart, as from a real LLM.
async function startScripted(bin, log) {
  const child = spawn(bin, ['--port', '0', '--dim', '64', '--stream-delay-ms', '25'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child, 'scripted-llm', log);
  const rl = createInterface({ input: child.stdout });
  const url = await new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error('scripted-llm did not print its URL within 20 s')), 20_000);
    child.on('exit', (code) => rej(new Error(`scripted-llm exited with ${code}`)));
    child.on('error', (e) => rej(new Error(`cannot start ${bin}: ${e.message} (build it: cargo build --release -p lightrag-scripted-llm)`)));
    rl.once('line', (line) => {
      clearTimeout(timer);
      res(line.trim());
    });
  });
  return { child, url };
}

async function waitReady(url, child, timeoutMs) {
  const until = Date.now() + timeoutMs;
  let exited = null;
  child.on('exit', (code) => (exited = code));
  while (Date.now() < until) {
    if (exited !== null) throw new Error(`lightrag serve exited with ${exited} before it was ready`);
    try {
      const r = await fetch(`${url}/auth-status`);
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`lightrag serve was not ready within ${timeoutMs} ms`);
}

/**
 * Starts the scripted LLM and `lightrag serve` (behind e2e/overlay.mjs when WEBUI_DIST names a
 * UI build folder).
 * @param {{env?: Record<string,string>, workDir?: string, log?: (s: string) => void, port?: number}} options
 */
export async function startStack(options = {}) {
  const bins = binaries();
  const log = options.log;
  const scripted = await startScripted(bins.scripted, log);
  const workDir = options.workDir ?? mkdtempSync(join(tmpdir(), 'lightrag-webui-'));
  const inputDir = join(workDir, 'inputs');
  mkdirSync(inputDir, { recursive: true });
  const port = options.port ?? (await freePort());
  const env = {
    ...process.env,
    RUST_BACKTRACE: '0',
    LLM_BINDING: 'openai',
    LLM_BINDING_HOST: scripted.url,
    LLM_MODEL: 'scripted',
    EMBEDDING_BINDING: 'openai',
    EMBEDDING_BINDING_HOST: scripted.url,
    EMBEDDING_MODEL: 'scripted',
    EMBEDDING_DIM: '64',
    ...options.env,
  };
  delete env.RUST_LOG;
  // a fresh SQLite store in workDir, never a PostgreSQL server the caller's environment names
  // (scripts/test.sh may run with DATABASE_URL set: every run would share that database and find
  // the previous run's documents)
  for (const key of Object.keys(env)) {
    if (key === 'DATABASE_URL' || key.startsWith('POSTGRES_') || /^LIGHTRAG_.*_STORAGE$/.test(key)) delete env[key];
  }
  const child = spawn(
    bins.lightrag,
    ['--working-dir', join(workDir, 'rag_storage'), 'serve', '--host', '127.0.0.1', '--port', String(port), '--input-dir', inputDir],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  track(child, 'lightrag', log);
  child.on('error', (e) => log?.(`cannot start ${bins.lightrag}: ${e.message}`));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitReady(url, child, 60_000);
  } catch (e) {
    scripted.child.kill('SIGKILL');
    child.kill('SIGKILL');
    throw e;
  }
  // WEBUI_DIST: the UI of that build folder instead of the one embedded in the binary
  const dist = process.env.WEBUI_DIST;
  const overlay = dist ? await startOverlay({ target: url, dist: resolve(dist), prefix: options.env?.LIGHTRAG_API_PREFIX ?? '' }) : null;
  return {
    url: overlay?.url ?? url,
    llmUrl: scripted.url,
    workDir,
    inputDir,
    async stop() {
      await overlay?.stop();
      const done = new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
      child.kill('SIGTERM');
      await Promise.race([done, new Promise((r) => setTimeout(r, 15_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
      scripted.child.kill('SIGKILL');
    },
  };
}
