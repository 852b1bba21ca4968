// A text field for an existing entity's name, with the server's label search as suggestions.
import { useEffect, useMemo, useState } from 'react';
import { t } from '../../i18n';
import { server } from '../../app/services';
import { Combobox } from './Combobox';
import { createSuggestions, type SuggestState, WHOLE_GRAPH } from './suggest';

export function EntityField({
  label,
  value,
  onChange,
  onPick,
  testId,
  clearOnPick,
  disabled,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  onPick?: (v: string) => void;
  testId?: string;
  clearOnPick?: boolean;
  disabled?: boolean;
}) {
  const [state, setState] = useState<SuggestState>({ query: '', items: [], loading: false, error: null });
  const suggestions = useMemo(
    () =>
      createSuggestions(
        { popular: (signal) => server.popularLabels(50, signal), search: (q, signal) => server.searchLabels(q, 20, signal) },
        setState,
      ),
    [],
  );
  useEffect(() => () => suggestions.dispose(), [suggestions]);
  return (
    <Combobox
      label={label}
      showLabel
      value={value}
      onChange={onChange}
      onOpen={(t) => suggestions.input(t)}
      options={state.items.filter((i) => i !== WHOLE_GRAPH)}
      loading={state.loading}
      error={state.error}
      onPick={(o) => onPick?.(o)}
      clearOnPick={clearOnPick}
      placeholder={t('graph.entityName')}
      testId={testId}
      disabled={disabled}
      className="graph-entity-field"
    />
  );
}
