// Entity types of the loaded graph with their colour and count; clicking a type hides or shows it.
import { useMemo, useState } from 'react';
import { t } from '../../i18n';
import { typeKey } from './colors';
import { typeCounts } from './graphData';
import type { GraphModel } from './model';

export function Legend({ model, version, hidden }: { model: GraphModel; version: number; hidden: string[] }) {
  // folded by default on narrow screens, where it would cover much of the graph
  const [open, setOpen] = useState(() => typeof window === 'undefined' || !window.matchMedia?.('(max-width: 760px)').matches);
  const entries = useMemo(
    () => [...typeCounts(model.graph, typeKey).entries()].sort((a, b) => b[1].count - a[1].count || a[0].localeCompare(b[0])),
    // `version` tells when the mutable graph changed
    [model, version],
  );
  if (entries.length === 0) return null;
  return (
    <section className={`graph-legend ${open ? '' : 'collapsed'}`} aria-label={t('graph.types')} data-testid="graph-legend">
      <header>
        <button type="button" className="graph-legend-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
          {t('graph.typesCount', { count: entries.length })}
        </button>
        {open && hidden.length > 0 && (
          <button type="button" className="link-button" onClick={() => model.showAllTypes()}>
            {t('graph.showAll')}
          </button>
        )}
      </header>
      {open && (
        <ul>
          {entries.map(([key, e]) => {
            const off = hidden.includes(key);
            return (
              <li key={key}>
                <button
                  type="button"
                  className={off ? 'off' : undefined}
                  aria-pressed={!off}
                  title={off ? t('graph.showType', { type: e.type }) : t('graph.hideType', { type: e.type })}
                  onClick={() => model.toggleType(key)}
                >
                  <span className="graph-swatch" style={{ background: e.color }} aria-hidden="true" />
                  <span className="graph-legend-name">{e.type}</span>
                  <span className="graph-legend-count">{e.count}</span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
