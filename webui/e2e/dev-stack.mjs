// For UI development: starts the scripted LLM and `lightrag serve` (release binaries) and keeps
// them running; then run `npm run dev` (Vite forwards the API to LIGHTRAG_URL) or open the
// printed URL (the embedded build).
//
//   node e2e/dev-stack.mjs [--port 9621] [--auth]    (--auth: accounts admin/admin-pw)
import { startStack } from './stack.mjs';

const args = process.argv.slice(2);
const portIdx = args.indexOf('--port');
const port = portIdx >= 0 ? Number(args[portIdx + 1]) : 9621;
const env = args.includes('--auth')
  ? { AUTH_ACCOUNTS: 'admin:admin-pw', TOKEN_SECRET: 'dev-secret-0123456789abcdef' }
  : {};
const stack = await startStack({ port, env, log: (s) => process.stderr.write(s) });
console.log(`lightrag serve: ${stack.url}/webui/   (LLM: ${stack.llmUrl}, data: ${stack.workDir})`);
console.log('Ctrl-C to stop.');
const stop = async () => {
  await stack.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
