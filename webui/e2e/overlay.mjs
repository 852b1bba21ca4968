// Serves a web UI build from a folder in front of a running `lightrag serve`, so the browser tests
// (and a developer) can run the UI of the current source against the real server without
// rebuilding the binary that embeds `webui/dist`:
//
//   npx vite build --outDir /tmp/ui && WEBUI_DIST=/tmp/ui node e2e/run.mjs
//
// `{prefix}/webui/…` comes from the folder; its index.html gets the server's own configuration
// script (and the Content-Security-Policy that allows it), taken from the server's index page.
// Everything else is forwarded to the server as it is, streamed both ways.
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

/** The server's index page: its configuration script and CSP, put into the build's index.html. */
async function indexPage(target, prefix, dist) {
  const r = await fetch(`${target}${prefix}/webui/`);
  const served = await r.text();
  const script = /<script>window\.__LIGHTRAG_CONFIG__[\s\S]*?<\/script>/.exec(served)?.[0] ?? '';
  const built = await readFile(join(dist, 'index.html'), 'utf8');
  const html = built.replace(/<\/head>/i, `${script}\n</head>`);
  return { html, csp: r.headers.get('content-security-policy') };
}

function forward(target, req, res) {
  const url = new URL(target);
  const upstream = http.request(
    { host: url.hostname, port: url.port, method: req.method, path: req.url, headers: { ...req.headers, host: url.host } },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', (e) => {
    if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain' });
    res.end(`overlay: ${e.message}`);
  });
  req.pipe(upstream);
}

/** Starts the overlay on a free loopback port; resolves its URL and a stop function. */
export async function startOverlay({ target, dist, prefix = '' }) {
  const webui = `${prefix}/webui/`;
  const server = http.createServer(async (req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/');
    if (!path.startsWith(webui)) return forward(target, req, res);
    const rel = path.slice(webui.length);
    try {
      if (rel === '' || rel === 'index.html') {
        const { html, csp } = await indexPage(target, prefix, dist);
        res.writeHead(200, { 'Content-Type': TYPES['.html'], 'Cache-Control': 'no-cache', ...(csp ? { 'Content-Security-Policy': csp } : {}) });
        return res.end(html);
      }
      const file = normalize(join(dist, rel));
      if (!file.startsWith(normalize(dist) + sep)) throw new Error('outside the build');
      const body = await readFile(file);
      res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('not in the build');
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); }),
  };
}
