// Markdown → safe HTML for answers: GitHub-flavoured Markdown by `marked`, sanitised by
// DOMPurify with an allowlist of the tags and attributes Markdown produces. The text comes from
// the LLM, which quotes documents and may be steered by them, so:
// * raw HTML in the text is never handed to an HTML parser as markup: `markdownToHtml` escapes
//   every raw tag except a few bare ones without attributes (`<br>`, `<sub>`, `<kbd>`…), so the
//   only attributes that reach DOMPurify's parser are the ones marked itself writes (href, title,
//   align…). Parsing hostile markup, even into DOMPurify's inert document, makes Chromium check
//   its inline handlers against the page's CSP (and log a violation per handler since 156);
// * no element that makes the browser fetch something (img, video, audio, source, picture,
//   track, object…; nor `background`, `poster`, `srcset`, `ping` attributes): an answer must not
//   send what it contains to another host;
// * no `style`, `id`, `name`, data or ARIA attributes, and only `language-*` classes (code
//   blocks): an answer cannot restyle or cover the page, nor clobber globals by id;
// * links open in a new tab without access to this page (rel=noopener noreferrer); DOMPurify
//   drops `javascript:` and `data:` URLs. In-page `#…` links stay in the tab.
import DOMPurify from 'dompurify';
import { Marked } from 'marked';

export const ALLOWED_TAGS = [
  'a', 'abbr', 'b', 'blockquote', 'br', 'caption', 'code', 'dd', 'del', 'details', 'div', 'dl', 'dt', 'em',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'i', 'ins', 'kbd', 'li', 'mark', 'ol', 'p', 'pre', 's', 'span',
  'strong', 'sub', 'summary', 'sup', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul',
];

export const ALLOWED_ATTR = ['href', 'title', 'align', 'colspan', 'rowspan', 'start', 'open', 'class', 'target', 'rel'];

/** Raw tags an answer may use as markup: bare (no attribute), inline or folding, nothing that loads. */
const BARE_TAGS = ['b', 'br', 'del', 'details', 'em', 'i', 'ins', 'kbd', 'mark', 's', 'strong', 'sub', 'summary', 'sup'];
const BARE_TAG = new RegExp(`^<(/?)(${BARE_TAGS.join('|')})\\s*(/?)>$`, 'i');

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/**
 * Raw HTML of the Markdown source (a block or one inline tag) as it may appear in the output:
 * bare allowed tags are kept (rewritten in lower case), everything else becomes visible text.
 */
export function rawHtml(text: string): string {
  // a block may hold several tags and text between them: keep the bare tags, escape the rest
  return text.replace(/<[^<>]*>|[^<]+|</g, (part) => {
    const bare = BARE_TAG.exec(part);
    if (!bare) return escapeHtml(part);
    const [, close, name] = bare;
    return `<${close}${(name ?? '').toLowerCase()}>`;
  });
}

/**
 * Math in answers, as LightRAG's UI reads it: `$$…$$` (a block, or display math inline) and
 * `$…$` inline, where the opening `$` is not followed by a space and the closing one is not
 * preceded by a space nor followed by a digit ("costs $5 and $10" stays text). The TeX is kept as
 * escaped text in a `language-math` code element; KaTeX renders it after the answer is shown
 * (math.ts, loaded only when an answer has math).
 */
const BLOCK_MATH = /^\$\$([\s\S]+?)\$\$[ \t]*(?:\n|$)/;
const INLINE_MATH = /^\$\$((?:\\.|[^\\$])+?)\$\$|^\$(?![\s$])((?:\\.|[^\\$\n])*?[^\s\\$])\$(?!\d)/;

export function mathPlaceholder(tex: string, display: boolean, block: boolean): string {
  const code = `<code class="${display ? 'language-math' : 'language-math-inline'}">${escapeHtml(tex)}</code>`;
  return block ? `<pre>${code}</pre>\n` : code;
}

const mathExtension = {
  extensions: [
    {
      name: 'blockMath',
      level: 'block' as const,
      // only at the start of a line: `$$…$$` inside a sentence is inline display math
      start: (src: string) => {
        const m = /(^|\n)\$\$/.exec(src);
        return m ? m.index + (m[1] ?? '').length : undefined;
      },
      tokenizer(src: string) {
        const m = BLOCK_MATH.exec(src);
        return m ? { type: 'blockMath', raw: m[0], text: (m[1] ?? '').trim() } : undefined;
      },
      renderer: (token: { text?: unknown }) => mathPlaceholder(String(token.text ?? ''), true, true),
    },
    {
      name: 'inlineMath',
      level: 'inline' as const,
      start: (src: string) => src.match(/\$/)?.index,
      tokenizer(src: string) {
        const m = INLINE_MATH.exec(src);
        if (!m) return undefined;
        const display = m[1] !== undefined;
        return { type: 'inlineMath', raw: m[0], text: (display ? m[1] : m[2]) ?? '', display };
      },
      renderer: (token: { text?: unknown; display?: unknown }) =>
        mathPlaceholder(String(token.text ?? ''), token.display === true, false),
    },
  ],
};

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    html({ text }) {
      return rawHtml(text);
    },
  },
});
marked.use(mathExtension);

/** The Markdown as HTML before sanitising: only marked's own markup and bare allowed tags. */
export function markdownToHtml(source: string): string {
  return marked.parse(source, { async: false });
}

const CODE_CLASS = /^language-[\w+#.-]{1,40}$/;

/** What the answer needs rendered after it is shown (to load KaTeX or Mermaid only then). */
export function richContent(html: string): { math: boolean; mermaid: boolean } {
  return { math: html.includes('class="language-math'), mermaid: html.includes('class="language-mermaid"') };
}

let purifier: ReturnType<typeof DOMPurify> | null = null;

function getPurifier(): ReturnType<typeof DOMPurify> {
  if (purifier) return purifier;
  const p = DOMPurify(window);
  p.addHook('uponSanitizeAttribute', (_node, data) => {
    if (data.attrName === 'class' && !CODE_CLASS.test(data.attrValue.trim())) data.keepAttr = false;
  });
  p.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName !== 'A') return;
    const href = node.getAttribute('href');
    if (href !== null && !href.startsWith('#')) {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    } else {
      node.removeAttribute('target');
    }
  });
  purifier = p;
  return p;
}

export function renderMarkdown(source: string): string {
  return getPurifier().sanitize(markdownToHtml(source), {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
  });
}
