// Debian's Chromium driven by playwright-core (never a downloaded browser), with the flags this
// machine's closed network needs, and a recorder of everything that went wrong in the page:
// console errors, uncaught exceptions, failed requests and HTTP errors.
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
];

export async function launch() {
  return chromium.launch({
    executablePath: CHROMIUM,
    // playwright gives every launch a fresh temporary profile of its own
    args: CHROMIUM_ARGS,
    headless: true,
  });
}

/**
 * Records the page's problems. Steps that provoke an error on purpose declare it first with
 * `expect(pattern)` (matched against "STATUS METHOD URL" or the console text).
 */
export function watchProblems(page) {
  const problems = [];
  const expected = [];
  const allowed = (text) => expected.some((re) => re.test(text));
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    // "Failed to load resource" names its URL only in the location
    const where = msg.location()?.url;
    const text = where ? `${msg.text()} (${where})` : msg.text();
    if (!allowed(text)) problems.push(`console error: ${text}`);
  });
  page.on('pageerror', (err) => problems.push(`uncaught exception: ${err.message}`));
  page.on('requestfailed', (req) => {
    const failure = req.failure()?.errorText ?? '';
    // Aborted on purpose (a stopped stream, a superseded search) is not a failure.
    if (/ERR_ABORTED|cancel/i.test(failure)) return;
    const text = `${req.method()} ${req.url()} failed: ${failure}`;
    if (!allowed(text)) problems.push(text);
  });
  page.on('response', (res) => {
    if (res.status() >= 400) {
      const text = `${res.status()} ${res.request().method()} ${res.url()}`;
      if (!allowed(text)) problems.push(`HTTP ${text}`);
    }
  });
  return {
    problems,
    expect(pattern) {
      expected.push(pattern);
    },
    take() {
      return problems.splice(0, problems.length);
    },
  };
}
