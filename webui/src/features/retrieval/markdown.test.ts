import { describe, expect, it } from 'vitest';
import { ALLOWED_TAGS, escapeHtml, markdownToHtml, rawHtml, richContent } from './markdown';

// Every start tag of an HTML string with its attribute names, read as a browser's tokenizer
// reads them: `<` + letter starts a tag; attributes are separated by white space or `/`, and a
// value is quoted ("…" or '…') or runs to the next white space or `>`.
function tags(html: string): { name: string; attrs: string[] }[] {
  const found: { name: string; attrs: string[] }[] = [];
  const start = /<([a-zA-Z][^\s/>]*)/g;
  for (let m = start.exec(html); m; m = start.exec(html)) {
    const attrs: string[] = [];
    let i = start.lastIndex;
    while (i < html.length && html[i] !== '>') {
      if (/[\s/]/.test(html[i] ?? '')) {
        i++;
        continue;
      }
      let name = '';
      while (i < html.length && !/[\s/>=]/.test(html[i] ?? '')) name += html[i++];
      while (/\s/.test(html[i] ?? '')) i++;
      if (html[i] === '=') {
        i++;
        while (/\s/.test(html[i] ?? '')) i++;
        const quote = html[i];
        if (quote === '"' || quote === "'") {
          const end = html.indexOf(quote, i + 1);
          i = end < 0 ? html.length : end + 1;
        } else {
          while (i < html.length && !/[\s>]/.test(html[i] ?? '')) i++;
        }
      }
      if (name) attrs.push(name.toLowerCase());
    }
    found.push({ name: (m[1] ?? '').toLowerCase(), attrs });
    start.lastIndex = i;
  }
  return found;
}

// What marked itself writes besides the sanitiser's allowlist (DOMPurify removes img and input).
const MARKED_TAGS = new Set([...ALLOWED_TAGS, 'img', 'input']);
const MARKED_ATTRS = new Set(['href', 'title', 'align', 'start', 'class', 'src', 'alt', 'type', 'checked', 'disabled']);

const HOSTILE = [
  '<img src="http://127.0.0.1:9/i" onerror="alert(1)">',
  '<details open ontoggle="alert(1)"><summary>s</summary>d</details>',
  '<div class="docs-drop-overlay" id="root" style="position:fixed;inset:0" onclick="alert(1)">cover</div>',
  '<svg onload=alert(1)>',
  '<img/src/onerror=alert(1)>',
  '<IMG SRC=x ONERROR=alert(1)>',
  '<img\tsrc=x\tonerror=alert(1)>',
  '<details/open/ontoggle=alert(1)>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
  '<!--<img src=x onerror=alert(1)>-->',
  '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  '<a href="javascript:alert(1)" onmouseover="alert(1)">x</a>',
  'text **bold** <b onclick="alert(1)">b</b> and `<img onerror=x>` in code',
  '```html\n<img src=x onerror=alert(1)>\n```',
  '| a | b |\n|---|---|\n| <img src=x onerror=alert(1)> | <br> |',
  '> quoted <video poster=x onloadstart=alert(1)></video>',
  '- item <audio src=x onerror=alert(1)>\n- <sub>2</sub>',
  '[link](https://example.org/ "t\\" onclick=\\"alert(1)")',
  '<kbd onfocus=alert(1) autofocus>k</kbd>',
];

function assertNoHandlerReachesTheParser(source: string) {
  const html = markdownToHtml(source);
  for (const tag of tags(html)) {
    expect(MARKED_TAGS.has(tag.name), `<${tag.name}> from ${JSON.stringify(source)} → ${html}`).toBe(true);
    for (const attr of tag.attrs) {
      expect(attr.startsWith('on'), `${attr} on <${tag.name}> from ${JSON.stringify(source)} → ${html}`).toBe(false);
      expect(MARKED_ATTRS.has(attr), `${attr} on <${tag.name}> from ${JSON.stringify(source)} → ${html}`).toBe(true);
    }
  }
}

describe('markdownToHtml (the string handed to the sanitiser\'s parser)', () => {
  it('never contains raw markup with attributes from the source: hostile answers become text', () => {
    for (const source of HOSTILE) assertNoHandlerReachesTheParser(source);
  });

  it('shows hostile markup as the text it is', () => {
    const html = markdownToHtml('<img src="x" onerror="alert(1)">');
    expect(html).toContain('&lt;img src=&quot;x&quot; onerror=&quot;alert(1)&quot;&gt;');
    expect(markdownToHtml('<details open ontoggle="alert(1)">d</details>')).toContain('&lt;details open ontoggle=');
  });

  it('keeps Markdown and bare inline tags', () => {
    const html = markdownToHtml('**bold** [a](https://example.org/doc) H<sub>2</sub>O<br>x <KBD>Ctrl</KBD>');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<a href="https://example.org/doc">a</a>');
    expect(html).toContain('H<sub>2</sub>O<br>x <kbd>Ctrl</kbd>');
    expect(markdownToHtml('<details>\n<summary>more</summary>\n\nhidden\n</details>')).toContain('<details>\n<summary>more</summary>');
  });

  it('holds for random tag soup', () => {
    const parts = ['<', '>', '/', ' ', '\t', '=', '"', "'", 'img', 'br', 'sub', 'details', 'onerror', 'on', 'src', 'x', '*', '`', '\n', '[', ']', '(', ')', '!', '<!--', '-->', '|', '-'];
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed;
    };
    for (let i = 0; i < 2000; i++) {
      let source = '';
      const n = 1 + (next() % 30);
      for (let j = 0; j < n; j++) source += parts[next() % parts.length];
      assertNoHandlerReachesTheParser(source);
    }
  });
});

describe('rawHtml', () => {
  it('keeps bare allowed tags and escapes everything else', () => {
    expect(rawHtml('<br/>')).toBe('<br>');
    expect(rawHtml('</SUP>')).toBe('</sup>');
    expect(rawHtml('<br onclick=x>')).toBe('&lt;br onclick=x&gt;');
    expect(rawHtml('<div>a</div>')).toBe('&lt;div&gt;a&lt;/div&gt;');
    expect(rawHtml('<b>bold <i>x</i></b>')).toBe('<b>bold <i>x</i></b>');
    expect(rawHtml('a < b')).toBe('a &lt; b');
  });
  it('escapes the five HTML characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;');
  });
});

describe('math in Markdown', () => {
  it('keeps inline and block TeX as escaped code for KaTeX', () => {
    expect(markdownToHtml('Energy $E=mc^2$ here')).toContain('<code class="language-math-inline">E=mc^2</code>');
    expect(markdownToHtml('$$\n\\sum_i x_i\n$$\n')).toContain('<pre><code class="language-math">\\sum_i x_i</code></pre>');
    expect(markdownToHtml('inline $$a+b$$ display')).toContain('<code class="language-math">a+b</code>');
  });

  it('leaves dollar amounts as text', () => {
    const html = markdownToHtml('It costs $5 and $10, or $ 3 $.');
    expect(html).not.toContain('language-math');
    expect(html).toContain('$5 and $10');
  });

  it('does not let TeX smuggle markup', () => {
    const html = markdownToHtml('$<img src=x onerror=alert(1)>$ and $$</code><script>alert(1)</script>$$');
    expect(tags(html).map((t) => t.name)).not.toContain('img');
    expect(tags(html).map((t) => t.name)).not.toContain('script');
    expect(richContent(html)).toEqual({ math: true, mermaid: false });
  });

  it('detects Mermaid blocks', () => {
    expect(richContent(markdownToHtml('```mermaid\ngraph TD\nA-->B\n```'))).toEqual({ math: false, mermaid: true });
  });
});
