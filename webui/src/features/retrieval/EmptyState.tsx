// What an empty conversation shows: how to ask, and example questions — some about the
// knowledge graph's most connected entities when there are any.
import { useEffect, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { server } from '../../app/services';
import { examplesFrom } from './examples';

export function EmptyState({ onPick }: { onPick: (q: string) => void }) {
  const { t } = useTranslation();
  const [labels, setLabels] = useState<string[]>([]);
  useEffect(() => {
    let alive = true;
    server
      .popularLabels(5)
      .then((labels) => {
        if (alive && Array.isArray(labels)) setLabels(labels);
      })
      .catch(() => undefined);
    return () => {
      alive = false;
    };
  }, []);
  // built at each render, so a change of language shows at once
  const examples = examplesFrom(labels);
  return (
    <div className="chat-empty" data-testid="chat-empty">
      <h2>{t('retrieval.empty.title')}</h2>
      <p className="muted">
        <Trans t={t} i18nKey="retrieval.empty.body" components={{ strong: <strong /> }} />
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
        <Trans t={t} i18nKey="retrieval.empty.tip" components={{ code: <code /> }} />
      </p>
    </div>
  );
}
