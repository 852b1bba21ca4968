// Unit tests of the UI's logic (API client, NDJSON reader, auth renewal, state) and server-rendered
// components: plain Node, no DOM.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx'],
    environment: 'node',
  },
});
