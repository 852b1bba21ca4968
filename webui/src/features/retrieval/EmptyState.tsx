// What an empty conversation shows: how to ask, and example questions — some about the
// knowledge graph's most connected entities when there are any.
import { useEffect, useState } from 'react';
import { server } from '../../app/services';
import { examplesFrom, GENERIC_EXAMPLES } from './examples';

export function EmptyState({ onPick }: { onPick: (q: string) => void }) {
  const [examples, setExamples] = useState<string[]>(GENERIC_EXAMPLES);
  useEffect(() => {
    let alive = true;
    server
      .popularLabels(5)
      .then((labels) => {
        if (alive && Array.isArray(labels)) setExamples(examplesFrom(labels));
      })
      .catch(() => undefined);
    return () => {
      alive = false;
    };
  }, []);
  return (
    <div className="chat-empty" data-testid="chat-empty">
      <h2>Ask your knowledge base</h2>
      <p className="muted">
        Answers come from the indexed documents and the knowledge graph, with their sources. Open{' '}
        <strong>Why this answer</strong> under an answer to see what was retrieved and what it cost.
      </p>
      <ul className="chat-examples">
        {examples.map((q) => (
          <li key={q}>
            <button type="button" className="chat-example" onClick={() => onPick(q)}>
              {q}
            </button>
          </li>
        ))}
      </ul>
      <p className="muted chat-empty-tip">
        Tip: start a question with <code>/local</code>, <code>/global</code>, <code>/hybrid</code>, <code>/naive</code>,{' '}
        <code>/mix</code> or <code>/bypass</code> to use that mode once.
      </p>
    </div>
  );
}
