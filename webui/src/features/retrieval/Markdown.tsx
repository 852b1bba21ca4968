// An answer rendered as Markdown (sanitised HTML).
import { memo, useMemo } from 'react';
import { renderMarkdown } from './markdown';

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  return <div className="chat-md" dangerouslySetInnerHTML={{ __html: html }} />;
});
