// The label to explore: a combobox with the server's suggestions (popular labels when empty,
// fuzzy search while typing, "*" = the whole graph), and the depth / max nodes settings.
import { useEffect, useMemo, useState } from 'react';
import { t } from '../../i18n';
import { server } from '../../app/services';
import { createSuggestions, type SuggestState, WHOLE_GRAPH } from './suggest';
import { Combobox } from './Combobox';

export interface LabelPickerProps {
  label: string;
  onLoad: (label: string) => void;
  depth: number;
  onDepth: (d: number) => void;
  maxNodes: number;
  onMaxNodes: (n: number) => void;
  maxNodesCap: number;
  loading: boolean;
  /** Changes when the graph changed on the server (edits, indexing): popular labels are re-read. */
  generation: number;
}

export function LabelPicker(p: LabelPickerProps) {
  const [text, setText] = useState(p.label);
  const [state, setState] = useState<SuggestState>({ query: '', items: [], loading: false, error: null });
  const suggestions = useMemo(
    () =>
      createSuggestions(
        {
          popular: (signal) => server.popularLabels(300, signal),
          search: (q, signal) => server.searchLabels(q, 50, signal),
        },
        setState,
      ),
    [],
  );
  useEffect(() => () => suggestions.dispose(), [suggestions]);
  useEffect(() => suggestions.invalidate(), [p.generation, suggestions]);
  useEffect(() => setText(p.label), [p.label]);

  return (
    <div className="graph-label-picker">
      <Combobox
        label={t('graph.entityLabel')}
        value={text}
        onChange={setText}
        onOpen={(t) => suggestions.input(t)}
        options={state.items}
        loading={state.loading}
        error={state.error}
        onPick={(o) => p.onLoad(o)}
        onSubmit={(t) => {
          const typed = t.trim();
          if (!typed) return;
          // Enter on a name the suggestions spell differently (case) loads the suggested one
          const match = state.items.find((i) => i.toLowerCase() === typed.toLowerCase());
          p.onLoad(match ?? typed);
        }}
        placeholder={t('graph.searchPlaceholder')}
        emptyText={text.trim() ? t('graph.noEntityMatches') : t('graph.noEntities')}
        renderOption={(o) =>
          o === WHOLE_GRAPH ? (
            <>
              <strong>*</strong> <span className="muted">{t('graph.wholeGraph')}</span>
            </>
          ) : (
            o
          )
        }
        testId="graph-label-input"
        selectOnFocus
        className="graph-label-box"
      />
      <button
        type="button"
        className="btn btn-small graph-load-button"
        onClick={() => p.onLoad(text.trim() || WHOLE_GRAPH)}
        disabled={p.loading}
        title={t('graph.loadTitle')}
        data-testid="graph-load"
      >
        {p.loading ? t('graph.loadingShort') : t('graph.load')}
      </button>
      <span className="graph-toolbar-extra graph-load-settings">
        <label className="graph-number" title={t('graph.depthTitle')}>
          <span>{t('graph.depth')}</span>
          <input
            type="number"
            min={1}
            max={10}
            value={p.depth}
            onChange={(e) => p.onDepth(clamp(Number(e.target.value), 1, 10))}
            data-testid="graph-depth"
          />
        </label>
        <label className="graph-number graph-number-wide" title={t('graph.maxNodesTitle', { cap: p.maxNodesCap })}>
          <span>{t('graph.maxNodes')}</span>
          <input
            type="number"
            min={1}
            max={p.maxNodesCap}
            step={50}
            value={p.maxNodes}
            onChange={(e) => p.onMaxNodes(clamp(Number(e.target.value), 1, p.maxNodesCap))}
            data-testid="graph-max-nodes"
          />
        </label>
      </span>
    </div>
  );
}

function clamp(n: number, min: number, max: number): number {
  if (!Number.isFinite(n)) return min;
  return Math.min(max, Math.max(min, Math.round(n)));
}
