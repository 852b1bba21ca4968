// Markdown → safe HTML for answers: GitHub-flavoured Markdown by `marked`, sanitised by
// DOMPurify with an allowlist of the tags and attributes Markdown produces. The text comes from
// the LLM, which quotes documents and may be steered by them, so:
// * no element that makes the browser fetch something (img, video, audio, source, picture,
//   track, object…; nor `background`, `poster`, `srcset`, `ping` attributes): an answer must not
//   send what it contains to another host;
// * no `style`, `id`, `name`, data or ARIA attributes, and only `language-*` classes (code
//   blocks): an answer cannot restyle or cover the page, nor clobber globals by id;
// * links open in a new tab without access to this page (rel=noopener noreferrer); DOMPurify
//   drops `javascript:` and `data:` URLs. In-page `#…` links stay in the tab.
import DOMPurify from 'dompurify';
import { Marked } from 'marked';

const marked = new Marked({ gfm: true, breaks: false, async: false });

export const ALLOWED_TAGS = [
  'a', 'abbr', 'b', 'blockquote', 'br', 'caption', 'code', 'dd', 'del', 'details', 'div', 'dl', 'dt', 'em',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'i', 'ins', 'kbd', 'li', 'mark', 'ol', 'p', 'pre', 's', 'span',
  'strong', 'sub', 'summary', 'sup', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul',
];

export const ALLOWED_ATTR = ['href', 'title', 'align', 'colspan', 'rowspan', 'start', 'open', 'class', 'target', 'rel'];

const CODE_CLASS = /^language-[\w+#.-]{1,40}$/;

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
  const html = marked.parse(source, { async: false });
  return getPurifier().sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
  });
}
