// Math and diagrams of an answer, rendered in place after the sanitised Markdown is shown:
// `code.language-math(-inline)` → KaTeX, `code.language-mermaid` → an SVG. The renderers are
// loaded on first use (their own chunks), and what they produce is sanitised by DOMPurify before
// it is inserted: KaTeX's HTML/MathML and Mermaid's SVG, with no script, handler, link target or
// foreign element left. A block that fails to render keeps its source, with the error as a title.
import DOMPurify from 'dompurify';

let purifier: ReturnType<typeof DOMPurify> | null = null;

function purify(): ReturnType<typeof DOMPurify> {
  purifier ??= DOMPurify(window);
  return purifier;
}

const FORBID_TAGS = ['a', 'image', 'img', 'script', 'iframe', 'object', 'embed', 'use', 'animate', 'set', 'foreignObject'];
const FORBID_ATTR = ['href', 'xlink:href', 'src', 'action', 'formaction'];

export function cleanMath(html: string): string {
  return purify().sanitize(html, { USE_PROFILES: { html: true, mathMl: true, svg: true }, FORBID_TAGS, FORBID_ATTR });
}

export function cleanSvg(svg: string): string {
  return purify().sanitize(svg, { USE_PROFILES: { svg: true, svgFilters: true }, FORBID_TAGS, FORBID_ATTR });
}

function theme(): 'light' | 'dark' {
  return document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light';
}

/** Renders the math placeholders under `root`. */
export async function renderMath(root: HTMLElement): Promise<void> {
  const nodes = [...root.querySelectorAll<HTMLElement>('code.language-math, code.language-math-inline')];
  if (nodes.length === 0) return;
  const { mathHtml } = await import('./math');
  for (const code of nodes) {
    if (!code.isConnected) continue;
    const display = code.classList.contains('language-math');
    // a $$ block replaces its <pre>; $$…$$ inside a paragraph stays inline in the flow
    const block = display && code.parentElement?.tagName === 'PRE';
    const box = document.createElement(block ? 'div' : 'span');
    box.className = block ? 'chat-math chat-math-block' : 'chat-math';
    box.innerHTML = cleanMath(mathHtml(code.textContent ?? '', display));
    (block && code.parentElement ? code.parentElement : code).replaceWith(box);
  }
}

/** Renders the Mermaid blocks under `root`. */
export async function renderDiagrams(root: HTMLElement): Promise<void> {
  const nodes = [...root.querySelectorAll<HTMLElement>('code.language-mermaid')];
  if (nodes.length === 0) return;
  const { diagramSvg } = await import('./diagram');
  for (const code of nodes) {
    const pre = code.parentElement?.tagName === 'PRE' ? code.parentElement : code;
    if (!pre.isConnected) continue;
    try {
      const svg = await diagramSvg(code.textContent ?? '', theme());
      const box = document.createElement('div');
      box.className = 'chat-diagram';
      box.setAttribute('role', 'img');
      box.innerHTML = cleanSvg(svg);
      if (pre.isConnected) pre.replaceWith(box);
    } catch (e) {
      pre.classList.add('chat-diagram-error');
      pre.title = e instanceof Error ? e.message : String(e);
    }
  }
}
