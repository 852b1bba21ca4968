// KaTeX for the math of answers (`$…$`, `$$…$$`), loaded only when an answer has math. The TeX
// comes from the LLM, so KaTeX runs untrusted: no \href/\url/\includegraphics/\htmlClass… links or
// raw HTML (trust: false), macros cannot expand forever (maxExpand), and an error shows the TeX in
// red instead of throwing. The HTML is sanitised again before it reaches the page (rich.ts).
import katex from 'katex';
import 'katex/dist/katex.min.css';

export function mathHtml(tex: string, display: boolean): string {
  return katex.renderToString(tex, {
    displayMode: display,
    throwOnError: false,
    trust: false,
    strict: 'ignore',
    maxExpand: 500,
    maxSize: 20,
    output: 'htmlAndMathml',
  });
}
