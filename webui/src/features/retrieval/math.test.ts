import { describe, expect, it } from 'vitest';
import { mathHtml } from './math';

describe('KaTeX math of answers', () => {
  it('renders inline and display math', () => {
    expect(mathHtml('E=mc^2', false)).toContain('class="katex"');
    expect(mathHtml('\\frac{n(n+1)}{2}', true)).toContain('katex-display');
  });

  it('turns links, images and HTML commands of a hostile answer into inert text', () => {
    for (const tex of [
      '\\href{javascript:alert(1)}{x}',
      '\\url{javascript:alert(1)}',
      '\\includegraphics{http://127.0.0.1:9/x.png}',
      '\\htmlClass{docs-drop-overlay}{x}',
      '\\htmlData{onclick=alert(1)}{x}',
      '\\htmlStyle{position:fixed;inset:0}{x}',
    ]) {
      const html = mathHtml(tex, false);
      // the commands show as red text (and the source in the MathML annotation), never as markup
      expect(html).not.toMatch(/<a\b|<img\b|\shref=|\ssrc=|class="[^"]*docs-drop-overlay|\sdata-|style="[^"]*position:\s*fixed/i);
      expect(html).toContain('#cc0000');
    }
  });

  it('escapes markup written as TeX', () => {
    const html = mathHtml('<img src=x onerror=alert(1)>', false);
    expect(html).not.toMatch(/<img\b|<script\b/i);
  });

  it('stops a macro that expands forever instead of hanging', () => {
    const html = mathHtml('\\def\\a{\\a\\a}\\a', false);
    expect(html).toContain('katex-error');
  });
});
