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

/**
 * Records every string with an inline event handler (`<tag … on…=`) that the page hands to an
 * HTML parser: DOMParser (DOMPurify parses there), innerHTML/outerHTML, insertAdjacentHTML,
 * createContextualFragment, setHTMLUnsafe, parseHTMLUnsafe. Untrusted text must be made inert
 * before any parser sees it: even an inert parse makes Chromium (156 on) check the handler against
 * the page's CSP. Read with `handlerMarkup(page)`.
 */
export async function installMarkupSpy(context) {
  await context.addInitScript(() => {
    const seen = [];
    Object.defineProperty(window, '__handlerMarkup', { value: seen });
    const HANDLER = /<[a-zA-Z][^>]*[\s/"']on[a-zA-Z]+\s*=/;
    const note = (sink, html) => {
      const text = String(html);
      if (HANDLER.test(text)) seen.push(`${sink}: ${text.slice(0, 160)}`);
    };
    const wrap = (owner, name, argIndex) => {
      const original = owner?.[name];
      if (typeof original !== 'function') return;
      owner[name] = function (...args) {
        note(name, args[argIndex]);
        return original.apply(this, args);
      };
    };
    wrap(DOMParser.prototype, 'parseFromString', 0);
    wrap(Element.prototype, 'insertAdjacentHTML', 1);
    wrap(Range.prototype, 'createContextualFragment', 0);
    wrap(Element.prototype, 'setHTMLUnsafe', 0);
    wrap(Document, 'parseHTMLUnsafe', 0);
    for (const proto of [Element.prototype, ShadowRoot.prototype]) {
      for (const prop of ['innerHTML', 'outerHTML']) {
        const d = Object.getOwnPropertyDescriptor(proto, prop);
        if (!d?.set) continue;
        Object.defineProperty(proto, prop, {
          ...d,
          set(value) {
            note(prop, value);
            d.set.call(this, value);
          },
        });
      }
    }
  });
}

/** The strings with inline handlers the page handed to an HTML parser (see installMarkupSpy). */
export async function handlerMarkup(page) {
  return page.evaluate(() => [...(window.__handlerMarkup ?? [])]);
}
