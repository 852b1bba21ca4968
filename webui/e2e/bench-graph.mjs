// Rendering benchmark of the graph page: the real graph component with a synthetic graph
// (`#/graph?synthetic=5000x20000`), in headless Chromium. Serves a build of the UI with a stub of
// the few API routes the shell needs (no lightrag server), then measures requestAnimationFrame
// intervals during a scripted camera pan/zoom and a hover sweep, and the time to first render.
//
//   node e2e/bench-graph.mjs [--size 5000x20000] [--gl swiftshader|disable-gpu|e2e] [--dist DIR] [--json] [--compare]
//
// --compare: also measures the page with its big-graph optimisations off (`&plain=1`: circles,
//            rectangle edges, edges and labels kept while moving, hover fading everything), first.
// --gl swiftshader (default): --use-angle=swiftshader --enable-unsafe-swiftshader (software WebGL)
// --gl disable-gpu:           --disable-gpu (Chromium picks its software fallback itself)
// --gl e2e:                   both, as the browser tests launch it (e2e/browser.mjs)
// --dist DIR: serve an existing build instead of building one into a temporary directory.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import os, { tmpdir } from 'node:os';
import { extname, join, normalize, resolve } from 'node:path';
import { chromium } from 'playwright-core';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const size = opt('size', '5000x20000');
const gl = opt('gl', 'swiftshader');
const asJson = args.includes('--json');
const compare = args.includes('--compare');
const webui = resolve(import.meta.dirname, '..');

function log(s) {
  if (!asJson) process.stderr.write(`${s}\n`);
}

// ---- the UI build ----
let dist = opt('dist', null);
const ownBuild = !dist;
if (!dist) {
  dist = mkdtempSync(join(tmpdir(), 'lightrag-graph-bench-'));
  log(`building the UI into ${dist} …`);
  execFileSync('npx', ['vite', 'build', '--outDir', dist, '--emptyOutDir', '--logLevel', 'warn'], { cwd: webui, stdio: 'inherit' });
}
if (!existsSync(join(dist, 'index.html'))) throw new Error(`no index.html in ${dist}`);

// ---- a static server with a stub API ----
const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
const guestToken = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub: 'guest', role: 'guest', exp: 4102444800, metadata: { auth_mode: 'disabled' } })}.x`;
const stub = {
  '/auth-status': { auth_configured: false, access_token: guestToken, token_type: 'bearer', auth_mode: 'disabled', core_version: 'bench', api_version: 'bench' },
  '/health': { status: 'healthy', pipeline_busy: false, configuration: { max_graph_nodes: 100000 }, core_version: 'bench', api_version: 'bench' },
  '/workspaces': { default: '', current: '', workspaces: [''] },
  '/graph/label/popular': [],
  '/graph/label/search': [],
};
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.json': 'application/json' };
const server = createServer((req, res) => {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  if (path in stub) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(stub[path]));
    return;
  }
  if (path === '/' || path === '/webui') {
    res.writeHead(302, { location: '/webui/' });
    res.end();
    return;
  }
  if (path.startsWith('/webui/')) {
    const rel = normalize(path.slice('/webui/'.length) || 'index.html').replace(/^(\.\.[/\\])+/, '');
    const file = join(dist, rel);
    if (file.startsWith(dist) && existsSync(file)) {
      res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
      res.end(readFileSync(file));
      return;
    }
  }
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end('{"detail":"Not Found"}');
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}`;

// ---- the browser ----
const flags = ['--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
if (gl === 'swiftshader') flags.push('--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist');
else if (gl === 'e2e') flags.push('--disable-gpu', '--use-angle=swiftshader', '--enable-unsafe-swiftshader');
else if (gl === 'disable-gpu') flags.push('--disable-gpu');
else throw new Error(`--gl ${gl}: expected swiftshader, disable-gpu or e2e`);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: flags });

const stats = (deltas) => {
  const s = [...deltas].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * (s.length - 1)))] ?? NaN;
  const mean = s.reduce((a, b) => a + b, 0) / Math.max(1, s.length);
  return { frames: s.length, median_ms: +q(0.5).toFixed(1), p95_ms: +q(0.95).toFixed(1), max_ms: +(s[s.length - 1] ?? NaN).toFixed(1), fps: +(1000 / mean).toFixed(1) };
};

/** Loads the synthetic graph in a fresh page and measures it. */
async function measure(variant) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));

  async function record(action) {
    await page.evaluate(() => {
      window.__frames = [];
      let last = performance.now();
      window.__recording = true;
      const tick = (t) => {
        window.__frames.push(t - last);
        last = t;
        if (window.__recording) requestAnimationFrame(tick);
      };
      requestAnimationFrame((t) => {
        last = t;
        requestAnimationFrame(tick);
      });
    });
    await action();
    return stats(
      await page.evaluate(() => {
        window.__recording = false;
        return window.__frames;
      }),
    );
  }

  try {
    const t0 = Date.now();
    await page.goto(`${base}/webui/#/graph?synthetic=${size}${variant === 'plain' ? '&plain=1' : ''}`);
    await page.waitForFunction(() => window.__graphBench !== undefined, null, { timeout: Number(opt('timeout', '180000')) });
    const wall = Date.now() - t0;
    const bench = await page.evaluate(() => {
      const b = window.__graphBench;
      return { nodes: b.nodes, edges: b.edges, buildMs: b.buildMs, firstRenderMs: b.firstRenderMs, sinceLoadMs: b.sinceLoadMs };
    });
    const renderer = await page.evaluate(() => {
      const c = document.createElement('canvas').getContext('webgl');
      const info = c?.getExtension('WEBGL_debug_renderer_info');
      return info ? c.getParameter(info.UNMASKED_RENDERER_WEBGL) : c ? c.getParameter(c.RENDERER) : 'no WebGL';
    });
    log(`[${variant}] graph: ${bench.nodes} nodes / ${bench.edges} edges, WebGL renderer: ${renderer}`);
    await page.waitForTimeout(500);
    const box = await page.getByTestId('graph-canvas').boundingBox();
    const cx = box.x + box.width / 2;
    const cy = box.y + box.height / 2;

    // camera: drag-pans in five directions, then wheel zooms in and out
    const panZoom = await record(async () => {
      for (const [dx, dy] of [[300, 0], [-300, 150], [0, -300], [150, 150], [-150, 0]]) {
        await page.mouse.move(cx, cy);
        await page.mouse.down();
        for (let i = 1; i <= 20; i++) await page.mouse.move(cx + (dx * i) / 20, cy + (dy * i) / 20);
        await page.mouse.up();
      }
      for (let i = 0; i < 8; i++) {
        await page.mouse.wheel(0, -240);
        await page.waitForTimeout(60);
      }
      for (let i = 0; i < 8; i++) {
        await page.mouse.wheel(0, 240);
        await page.waitForTimeout(60);
      }
      await page.waitForTimeout(400);
    });
    await page.getByTestId('graph-fit').click();
    await page.waitForTimeout(500);

    // hover sweep: the pointer crosses the graph on a grid (enters and leaves many nodes)
    let hovers = 0;
    const hover = await record(async () => {
      for (let row = 0; row < 6; row++) {
        const y = box.y + box.height * (0.15 + row * 0.14);
        for (let i = 0; i <= 40; i++) {
          await page.mouse.move(box.x + box.width * (0.1 + (0.8 * (row % 2 ? 40 - i : i)) / 40), y);
          if (await page.evaluate(() => document.querySelector('[data-testid="graph-canvas"]')?.style.cursor === 'pointer')) hovers++;
        }
      }
      await page.waitForTimeout(200);
    });

    const idle = await record(() => page.waitForTimeout(1500));
    await page.screenshot({ path: join(tmpdir(), `bench-graph-${variant}.png`) });
    return {
      variant,
      nodes: bench.nodes,
      edges: bench.edges,
      webgl_renderer: renderer,
      first_render_ms: Math.round(bench.firstRenderMs),
      graph_build_ms: Math.round(bench.buildMs),
      page_load_to_first_render_ms: Math.round(bench.sinceLoadMs),
      wall_ms: wall,
      pan_zoom: panZoom,
      hover_sweep: { ...hover, pointer_over_node_samples: hovers },
      idle,
      console_errors: errors,
    };
  } catch (e) {
    const shot = join(tmpdir(), 'bench-graph-failure.png');
    await page.screenshot({ path: shot }).catch(() => undefined);
    console.error(`benchmark failed (screenshot ${shot}); console errors: ${errors.join(' | ') || 'none'}`);
    throw e;
  } finally {
    await page.close();
  }
}

try {
  const results = [];
  if (compare) results.push(await measure('plain'));
  results.push(await measure('optimised'));
  const cpu = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`;
  if (asJson) console.log(JSON.stringify({ size, chromium_flags: flags.filter((f) => /gpu|angle|swiftshader/.test(f)), cpu, results }, null, 2));
  else {
    const line = (name, s) => `  ${name.padEnd(12)} median ${s.median_ms} ms, p95 ${s.p95_ms} ms, max ${s.max_ms} ms, ${s.fps} fps (${s.frames} frames)`;
    console.log(`Graph rendering benchmark — ${size} (nodes x edges), headless Chromium ${flags.filter((f) => /gpu|angle|swiftshader/.test(f)).join(' ')}`);
    console.log(`machine: ${cpu}`);
    for (const r of results) {
      console.log(`${r.variant === 'plain' ? 'without the big-graph optimisations (&plain=1)' : 'as shipped'} — WebGL: ${r.webgl_renderer}`);
      console.log(`  first render: ${r.first_render_ms} ms after the data (graph build ${r.graph_build_ms} ms); ${r.page_load_to_first_render_ms} ms after navigation`);
      console.log(line('pan/zoom', r.pan_zoom));
      console.log(line('hover sweep', r.hover_sweep) + `, pointer over a node in ${r.hover_sweep.pointer_over_node_samples} samples`);
      console.log(line('idle', r.idle));
      if (r.console_errors.length) console.log(`  console errors: ${r.console_errors.join(' | ')}`);
    }
  }
} finally {
  await browser.close();
  server.close();
  if (ownBuild) rmSync(dist, { recursive: true, force: true });
}
