// Mermaid for ```mermaid blocks of answers, loaded only when an answer has one (and once the
// answer is complete: a half-streamed diagram does not parse). securityLevel 'strict': labels are
// sanitised, no HTML labels, click handlers and `javascript:` links are disabled; `%%{init}%%`
// directives are dropped before Mermaid sees them, so an answer cannot change that
// configuration. The SVG is sanitised again before it reaches the page (rich.ts).
import mermaid from 'mermaid';

import { MERMAID_CONFIG, mermaidSource } from './diagramConfig';

let ready: 'light' | 'dark' | null = null;
let counter = 0;
/** Renders run one after the other: Mermaid's render is not re-entrant (two answers, or one
 * answer rendered again as its stream ends, could otherwise fail each other). */
let queue: Promise<unknown> = Promise.resolve();

/** The diagram as SVG text (unsanitised), or an Error saying why it does not parse. */
export function diagramSvg(code: string, theme: 'light' | 'dark'): Promise<string> {
  const run = queue.then(() => renderOne(code, theme));
  queue = run.catch(() => undefined);
  return run;
}

/** One render, tried a second time from a fresh initialisation when the first throws: an error
 * left behind by an earlier render must not turn a valid diagram into code (a diagram that does
 * not parse fails both times). */
async function renderOne(code: string, theme: 'light' | 'dark'): Promise<string> {
  try {
    return await renderOnce(code, theme);
  } catch {
    ready = null;
    return renderOnce(code, theme);
  }
}

async function renderOnce(code: string, theme: 'light' | 'dark'): Promise<string> {
  if (ready !== theme) {
    mermaid.initialize({ ...MERMAID_CONFIG, theme: theme === 'dark' ? 'dark' : 'default' });
    ready = theme;
  }
  counter += 1;
  const { svg } = await mermaid.render(`answer-diagram-${counter}`, mermaidSource(code));
  return svg;
}
