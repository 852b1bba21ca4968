// Find a node of the loaded graph: pick it to centre the view on it and select it.
import { useMemo, useState } from 'react';
import { t } from '../../i18n';
import { Combobox } from './Combobox';
import { searchNames } from './highlight';
import type { GraphModel } from './model';

export function NodeSearch({ model, version, onFound }: { model: GraphModel; version: number; onFound: (id: string) => void }) {
  const [text, setText] = useState('');
  const options = useMemo(
    () => searchNames(model.graph.nodes(), text, 30),
    // the graph is mutable: `version` tells when its nodes changed
    [model, version, text],
  );
  return (
    <Combobox
      label={t('graph.findNode')}
      value={text}
      onChange={setText}
      options={options}
      onPick={onFound}
      onSubmit={(t) => {
        const first = options[0] ?? (model.graph.hasNode(t.trim()) ? t.trim() : undefined);
        if (first) {
          setText('');
          onFound(first);
        }
      }}
      clearOnPick
      placeholder={t('graph.findIn', { count: model.graph.order })}
      emptyText={text.trim() ? t('graph.noNodeMatches') : t('graph.typeName')}
      testId="graph-node-search"
      className="graph-node-search"
      disabled={model.graph.order === 0}
    />
  );
}
