// An answer rendered as Markdown (sanitised HTML), then its math (KaTeX) and diagrams (Mermaid),
// whose renderers load only when an answer has some. Diagrams wait for the complete answer.
import { memo, useEffect, useMemo, useRef } from 'react';
import { renderMarkdown, richContent } from './markdown';

export const Markdown = memo(function Markdown({ text, live = false }: { text: string; live?: boolean }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  const rich = useMemo(() => richContent(html), [html]);
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = root.current;
    if (!el || (!rich.math && !rich.mermaid)) return;
    void import('./rich').then(async ({ renderDiagrams, renderMath }) => {
      if (rich.math) await renderMath(el);
      if (rich.mermaid && !live) await renderDiagrams(el);
    });
  }, [html, rich, live]);
  return <div ref={root} className="chat-md" dir="auto" dangerouslySetInnerHTML={{ __html: html }} />;
});
