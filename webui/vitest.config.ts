// Unit tests of the UI's logic (API client, NDJSON reader, auth renewal, state): plain Node, no DOM.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
  },
});
