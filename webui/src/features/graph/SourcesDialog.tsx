// "Where does this come from": the documents and chunks an entity or relation was extracted
// from, each chunk's text with the supporting words marked, and what the extraction said there.
import { useEffect, useState } from 'react';
import { t } from '../../i18n';
import { describeError } from '../../api/errors';
import { server } from '../../app/services';
import { Dialog } from '../../components/Dialog';
import { Spinner } from '../../components/Spinner';
import { showDocument } from '../../state/navigation';
import { countMarks, highlightSegments } from './highlight';
import { baseName, splitSep } from '../../lib/text';
import { chunksOfDocument, extractionLines, fallbackModel, fromAnswer, isMissingRoute, type SourcesModel, type SourcesTarget } from './sources';
import type { SourceChunk } from '../../api/types';

export interface SourcesDialogProps {
  target: SourcesTarget | null;
  description: string;
  onClose: () => void;
}

type Load = { state: 'loading' } | { state: 'error'; message: string } | { state: 'ready'; model: SourcesModel };

/** Set once the server answered that it has no sources routes: not asked again (no repeated 404s). */
let sourcesRouteMissing = false;

/** Chunks with their text asked for at first, and at most (the server's limit). */
const FIRST_LIMIT = 100;
const MAX_LIMIT = 500;

export function SourcesDialog({ target, description, onClose }: SourcesDialogProps) {
  const [load, setLoad] = useState<Load>({ state: 'loading' });
  const [limit, setLimit] = useState(FIRST_LIMIT);
  useEffect(() => setLimit(FIRST_LIMIT), [target]);
  useEffect(() => {
    if (!target) return;
    let stale = false;
    setLoad((l) => (l.state === 'ready' && limit > FIRST_LIMIT ? l : { state: 'loading' }));
    if (sourcesRouteMissing) {
      setLoad({ state: 'ready', model: fallbackModel(target, description) });
      return;
    }
    const request =
      target.kind === 'entity' ? server.entitySources(target.name, limit) : server.relationSources(target.source, target.target, limit);
    request.then(
      (answer) => !stale && setLoad({ state: 'ready', model: fromAnswer(target, answer) }),
      (e: unknown) => {
        if (stale) return;
        if (isMissingRoute(e)) {
          sourcesRouteMissing = true;
          setLoad({ state: 'ready', model: fallbackModel(target, description) });
        }
        else setLoad({ state: 'error', message: describeError(e) });
      },
    );
    return () => {
      stale = true;
    };
  }, [target, description, limit]);

  const title = !target
    ? 'Sources'
    : target.kind === 'entity'
      ? t('graph.sourcesOf', { name: target.name })
      : t('graph.sourcesOfRelation', { source: target.source, target: target.target });
  return (
    <Dialog open={target !== null} title={title} onClose={onClose} wide testId="graph-sources">
      <div data-testid="graph-sources-body" data-state={load.state} data-fallback={load.state === 'ready' && load.model.fallback ? 'true' : 'false'}>
        {load.state === 'loading' && <Spinner label={t('graph.loadingSources')} />}
        {load.state === 'error' && (
          <p className="form-error" role="alert">
            {load.message}
          </p>
        )}
        {load.state === 'ready' && (
          <SourcesBody
            model={load.model}
            onClose={onClose}
            onMore={limit < MAX_LIMIT && load.model.chunks.length < load.model.totalChunks ? () => setLimit(MAX_LIMIT) : null}
          />
        )}
      </div>
    </Dialog>
  );
}

function SourcesBody({ model, onClose, onMore }: { model: SourcesModel; onClose: () => void; onMore: (() => void) | null }) {
  const shown = model.chunks.length;
  return (
    <div className="graph-sources">
      {model.description && (
        <section>
          <h3>{t('graph.description')}</h3>
          <p className="graph-sources-description">{splitSep(model.description).join(' ')}</p>
        </section>
      )}
      {model.fallback && (
        <p className="graph-sources-note" role="note">
          {model.target.kind === 'entity' ? t('graph.fallbackEntity') : t('graph.fallbackRelation')}
        </p>
      )}
      <section>
        <h3>
          {t('graph.documents')} <span className="muted">({model.documents.length})</span>
        </h3>
        {model.documents.length === 0 ? (
          <p className="muted">{t('graph.noSourceDoc')}</p>
        ) : (
          <ul className="graph-sources-docs" data-testid="graph-sources-docs">
            {model.documents.map((d) => {
              const count = model.fallback ? null : d.chunk_ids.length || chunksOfDocument(model, d).length;
              return (
                <li key={`${d.doc_id}|${d.file_path}`}>
                  <span className="graph-sources-file" title={d.file_path}>
                    {baseName(d.file_path) || d.doc_id}
                  </span>
                  {d.status && <span className={`badge badge-${d.status}`}>{d.status}</span>}
                  {count !== null && <span className="muted">{t('graph.chunks', { count })}</span>}
                  {d.doc_id && (
                    <button
                      type="button"
                      className="link-button"
                      onClick={() => {
                        onClose();
                        showDocument(d.doc_id, d.file_path);
                      }}
                    >
                      {t('graph.openInDocuments')}
                    </button>
                  )}
                </li>
              );
            })}
          </ul>
        )}
      </section>
      <section>
        <h3>
          {t('graph.chunksHeading')}{' '}
          <span className="muted">
            ({model.fallback ? model.chunkIds.length : shown < model.totalChunks ? t('graph.shownOf', { shown, total: model.totalChunks }) : shown})
          </span>
        </h3>
        {model.fallback ? (
          <ul className="graph-sources-ids">
            {model.chunkIds.map((c) => (
              <li key={c}>
                <code>{c}</code>
              </li>
            ))}
          </ul>
        ) : shown === 0 ? (
          <p className="muted">{t('graph.noChunkText')}</p>
        ) : (
          <ol className="graph-chunks">
            {model.chunks.map((c) => (
              <ChunkView key={c.chunk_id} chunk={c} terms={model.terms} />
            ))}
          </ol>
        )}
        {onMore && (
          <button type="button" className="btn btn-small" onClick={onMore}>
            {t('graph.showMore', { count: Math.min(MAX_LIMIT, model.totalChunks) })}
          </button>
        )}
      </section>
    </div>
  );
}

function ChunkView({ chunk, terms }: { chunk: SourceChunk; terms: string[] }) {
  const segments = highlightSegments(chunk.content, terms);
  const marks = countMarks(segments);
  const said = extractionLines(chunk.extracted);
  return (
    <li className="graph-chunk" data-testid="graph-chunk">
      <header>
        <span className="graph-sources-file" title={chunk.file_path}>
          {baseName(chunk.file_path)}
        </span>
        <span className="muted">
          {t('graph.chunkN', { n: chunk.chunk_order_index + 1 })} · {t('graph.tokens', { count: chunk.tokens })} ·{' '}
          {t('graph.mentions', { count: marks })}
        </span>
      </header>
      <blockquote className="graph-chunk-text" data-testid="graph-chunk-text">
        {segments.map((s, i) => (s.mark ? <mark key={i}>{s.text}</mark> : <span key={i}>{s.text}</span>))}
      </blockquote>
      {said.length > 0 && (
        <div className="graph-extracted">
          <h4>{t('graph.extracted')}</h4>
          {said.map((lines, i) => (
            <dl key={i} className="graph-extracted-item">
              {lines.map((l) => (
                <div key={l.label}>
                  <dt>{l.label}</dt>
                  <dd>{l.text}</dd>
                </div>
              ))}
            </dl>
          ))}
        </div>
      )}
    </li>
  );
}
