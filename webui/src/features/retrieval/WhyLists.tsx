// The lists of the "why this answer" panel: entities, relations and chunks, each with its rank,
// score bar and origin; a row expands to the record's text and links to the graph or document.
import type { ReactNode } from 'react';
import { t } from '../../i18n';
import { formatDecimal, formatNumber } from '../../i18n/format';
import { baseName, splitSep } from '../../lib/text';
import { showInGraph } from '../../state/navigation';
import { openDocument } from './documents';
import { originHelp, originLabel, scoreFraction, type ChunkRow, type EntityRow, type RelationRow, type Scored } from './trace';

function ScoreBar({ score, all }: { score: number | null; all: (number | null)[] }) {
  if (score === null) return <span className="why-score muted">{t('why.noScore')}</span>;
  const pct = Math.round(scoreFraction(score, all) * 100);
  return (
    <span className="why-score" title={t('why.score', { score })}>
      <span className="why-score-track" aria-hidden="true">
        <span className="why-score-fill" style={{ width: `${pct}%` }} />
      </span>
      <span className="why-score-num">{formatNumber(score, 3)}</span>
    </span>
  );
}

function Row({
  row,
  all,
  title,
  extra,
  action,
  children,
  testId,
}: {
  row: Scored;
  all: (number | null)[];
  title: ReactNode;
  extra?: ReactNode;
  action?: ReactNode;
  children: ReactNode;
  testId: string;
}) {
  return (
    <li className="why-item" data-testid={testId}>
      <details className="why-details">
        <summary className="why-summary">
          <span className="why-rank">{row.rank}</span>
          <span className="why-title">{title}</span>
          {extra}
          {(row.score !== null || row.origin !== null) && (
            <span className="why-meta">
              <ScoreBar score={row.score} all={all} />
              <span className="why-origin" title={originHelp(row.origin)}>
                {originLabel(row.origin)}
              </span>
            </span>
          )}
        </summary>
        <div className="why-detail">{children}</div>
      </details>
      {action}
    </li>
  );
}

function GraphButton({ label, onClick }: { label: string; onClick: () => void }) {
  return (
    <button type="button" className="icon-button why-action" aria-label={label} title={label} onClick={onClick}>
      <span aria-hidden="true">◎</span>
    </button>
  );
}

function Files({ paths }: { paths: string | undefined }) {
  const list = splitSep(paths).filter((p) => p !== 'unknown_source');
  if (list.length === 0) return null;
  return (
    <p className="why-files">
      <span className="muted">{t('why.from')}</span>
      {list.map((p, i) => (
        <span key={p}>
          {i > 0 && ', '}
          <button type="button" className="link-button" onClick={() => void openDocument(p)}>
            {p}
          </button>
        </span>
      ))}
    </p>
  );
}

/** A description; merged descriptions (joined by <SEP>) one paragraph each. */
function Description({ text }: { text: string | undefined }) {
  const parts = splitSep(text);
  if (parts.length === 0) return <p className="why-text muted">{t('why.noDescription')}</p>;
  return (
    <>
      {parts.map((p, i) => (
        <p key={i} className="why-text">
          {p}
        </p>
      ))}
    </>
  );
}

function Empty({ text }: { text: string }) {
  return <p className="muted why-empty">{text}</p>;
}

export function EntityList({ rows }: { rows: EntityRow[] }) {
  if (rows.length === 0) return <Empty text={t('why.noEntities')} />;
  const all = rows.map((r) => r.score);
  return (
    <ol className="why-list">
      {rows.map((r) => (
        <Row
          key={r.name}
          row={r}
          all={all}
          testId="why-entity"
          title={r.name}
          extra={r.record?.entity_type ? <span className="badge why-type">{r.record.entity_type}</span> : null}
          action={
            <GraphButton
              label={t('why.showEntity', { name: r.name })}
              onClick={() => showInGraph({ entities: [r.name], relations: [], select: r.name })}
            />
          }
        >
          <Description text={r.record?.description} />
          <Files paths={r.record?.file_path} />
        </Row>
      ))}
    </ol>
  );
}

export function RelationList({ rows }: { rows: RelationRow[] }) {
  if (rows.length === 0) return <Empty text={t('why.noRelations')} />;
  const all = rows.map((r) => r.score);
  return (
    <ol className="why-list">
      {rows.map((r) => (
        <Row
          key={`${r.src}\u0000${r.tgt}`}
          row={r}
          all={all}
          testId="why-relation"
          title={
            <>
              {r.src} <span className="why-arrow" aria-label={t('why.to')}>
                →
              </span> {r.tgt}
            </>
          }
          action={
            <GraphButton
              label={t('why.showRelation', { src: r.src, tgt: r.tgt })}
              onClick={() => showInGraph({ entities: [r.src, r.tgt], relations: [[r.src, r.tgt]], select: r.src })}
            />
          }
        >
          {r.record?.keywords && (
            <p className="why-keywords-line">
              <span className="muted">{t('why.keywords')}</span>
              {r.record.keywords}
            </p>
          )}
          <Description text={r.record?.description} />
          {r.record && typeof r.record.weight === 'number' && <p className="muted">{t('why.weight', { weight: formatDecimal(r.record.weight) })}</p>}
          <Files paths={r.record?.file_path} />
        </Row>
      ))}
    </ol>
  );
}

export function ChunkList({ rows }: { rows: ChunkRow[] }) {
  if (rows.length === 0) return <Empty text={t('why.noChunks')} />;
  const all = rows.map((r) => r.score);
  return (
    <ol className="why-list">
      {rows.map((r) => (
        <Row
          key={r.id}
          row={r}
          all={all}
          testId="why-chunk"
          title={r.record?.file_path ? baseName(r.record.file_path) : <code>{r.id}</code>}
          extra={r.record?.reference_id ? <span className="badge why-type">[{r.record.reference_id}]</span> : null}
        >
          <p className="why-chunk-text">{r.record?.content ?? <span className="muted">{t('why.noText')}</span>}</p>
          <p className="muted why-chunk-id">
            <code>{r.id}</code>
          </p>
          <Files paths={r.record?.file_path} />
        </Row>
      ))}
    </ol>
  );
}
