// Build of the web UI. `npm run build` (or scripts/build-webui.sh) writes webui/dist, which the
// `lightrag` binary embeds and serves at /webui/. Asset URLs are relative (`base: './'`) so the
// same build works under any LIGHTRAG_API_PREFIX.
//
// `npm run dev` serves the UI with hot reload and forwards API calls to a running
// `lightrag serve` (LIGHTRAG_URL, default http://127.0.0.1:9621).
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const backend = process.env.LIGHTRAG_URL ?? 'http://127.0.0.1:9621';
const apiRoutes = [
  '/documents',
  '/query',
  '/graph',
  '/graphs',
  '/health',
  '/auth-status',
  '/login',
  '/workspaces',
  '/docs',
  '/openapi.json',
  '/api',
];

export default defineConfig({
  base: './',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    // Mermaid's ELK layout chunk (~1.5 MB) is loaded only for diagrams that ask for it
    chunkSizeWarningLimit: 1600,
    rolldownOptions: {
      output: {
        // The graph libraries are only needed on the graph tab: a chunk of their own, loaded lazily.
        codeSplitting: {
          groups: [
            { name: 'graph-vendor', test: /node_modules[\\/](sigma|graphology)/ },
            // KaTeX once, shared by the answers' math and Mermaid's (both load it lazily)
            { name: 'katex', test: /node_modules[\\/]katex/ },
          ],
        },
      },
    },
  },
  server: {
    proxy: Object.fromEntries(apiRoutes.map((r) => [r, { target: backend, changeOrigin: true }])),
  },
});
