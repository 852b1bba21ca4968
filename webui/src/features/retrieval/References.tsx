// The numbered sources under an answer; each opens its document, and shows its chunk texts
// when the query asked for them (include_chunk_content).
import { useTranslation } from 'react-i18next';
import type { Reference } from '../../api/types';
import { openDocument } from './documents';

export function References({ references }: { references: Reference[] }) {
  const { t } = useTranslation();
  if (references.length === 0) return null;
  return (
    <section className="chat-refs" aria-label={t('retrieval.refs.title')} data-testid="answer-references">
      <h3 className="chat-refs-title">{t('retrieval.refs.title')}</h3>
      <ol className="chat-refs-list">
        {references.map((r) => (
          <li key={`${r.reference_id}-${r.file_path}`} className="chat-ref" data-testid="answer-reference">
            <span className="chat-ref-id">[{r.reference_id}]</span>
            <div className="chat-ref-body">
              <button
                type="button"
                className="link-button chat-ref-file"
                title={t('retrieval.refs.open', { file: r.file_path })}
                onClick={() => void openDocument(r.file_path)}
              >
                {r.file_path}
              </button>
              {r.content && r.content.length > 0 && (
                <details className="chat-ref-chunks">
                  <summary>
                    {t('retrieval.refs.chunks', { count: r.content.length })}
                  </summary>
                  {r.content.map((c, i) => (
                    <blockquote key={i} className="chat-ref-chunk">
                      {c}
                    </blockquote>
                  ))}
                </details>
              )}
            </div>
          </li>
        ))}
      </ol>
    </section>
  );
}
