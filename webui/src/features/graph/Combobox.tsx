// An editable combobox (WAI-ARIA 1.2 pattern): a text input with a list of suggestions; ↑/↓ move,
// Enter picks (or submits the typed text), Esc closes, clicking an option picks it.
import { type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { t } from '../../i18n';
import { moveActive } from './suggest';

export interface ComboboxProps {
  label: string;
  /** Show the label (else it is for screen readers only). */
  showLabel?: boolean;
  value: string;
  onChange: (text: string) => void;
  /** The list opened (focus, click, typing): the suggestions for `text` are wanted. */
  onOpen?: (text: string) => void;
  options: string[];
  onPick: (option: string) => void;
  /** Enter without a highlighted option. */
  onSubmit?: (text: string) => void;
  loading?: boolean;
  error?: string | null;
  placeholder?: string;
  emptyText?: string;
  renderOption?: (option: string) => ReactNode;
  testId?: string;
  className?: string;
  disabled?: boolean;
  /** Keep the input's text after a pick (else the picked option is written into it). */
  clearOnPick?: boolean;
  /** Select the text on focus (typing replaces it). */
  selectOnFocus?: boolean;
}

export function Combobox(props: ComboboxProps) {
  const {
    label,
    showLabel,
    value,
    onChange,
    onOpen,
    options,
    onPick,
    onSubmit,
    loading,
    error,
    placeholder,
    emptyText,
    renderOption,
    testId,
    className,
    disabled,
    clearOnPick,
    selectOnFocus,
  } = props;
  const id = useId();
  const listId = `${id}-list`;
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const listRef = useRef<HTMLUListElement>(null);

  useEffect(() => {
    setActive(-1);
  }, [options]);

  useEffect(() => {
    if (active < 0) return;
    const el = listRef.current?.querySelector<HTMLElement>(`[data-index="${active}"]`);
    el?.scrollIntoView?.({ block: 'nearest' });
  }, [active]);

  const show = () => {
    if (!open) {
      setOpen(true);
      onOpen?.(value);
    }
  };

  const pick = (option: string) => {
    setOpen(false);
    setActive(-1);
    onChange(clearOnPick ? '' : option);
    onPick(option);
  };

  const onKeyDown = (e: React.KeyboardEvent<HTMLInputElement>) => {
    switch (e.key) {
      case 'ArrowDown':
      case 'ArrowUp':
        e.preventDefault();
        if (!open) {
          show();
          return;
        }
        setActive((a) => moveActive(a, options.length, e.key as 'ArrowDown' | 'ArrowUp'));
        return;
      case 'Enter': {
        e.preventDefault();
        const option = open && active >= 0 ? options[active] : undefined;
        if (option !== undefined) pick(option);
        else {
          setOpen(false);
          onSubmit?.(value);
        }
        return;
      }
      case 'Escape':
        if (open) {
          e.preventDefault();
          e.stopPropagation();
          setOpen(false);
          setActive(-1);
        }
        return;
      case 'Tab':
        setOpen(false);
        return;
    }
  };

  const expanded = open && (options.length > 0 || loading || Boolean(error) || value.trim() !== '');
  return (
    <div className={`graph-combobox ${className ?? ''}`}>
      <label htmlFor={id} className={showLabel ? 'graph-combobox-label' : 'visually-hidden'}>
        {label}
      </label>
      <input
        id={id}
        type="text"
        role="combobox"
        aria-expanded={expanded}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={expanded && active >= 0 ? `${id}-opt-${active}` : undefined}
        autoComplete="off"
        spellCheck={false}
        value={value}
        placeholder={placeholder}
        disabled={disabled}
        data-testid={testId}
        onChange={(e) => {
          onChange(e.target.value);
          setOpen(true);
          onOpen?.(e.target.value);
        }}
        onFocus={(e) => {
          if (selectOnFocus) e.target.select();
          show();
        }}
        onClick={show}
        onBlur={() => setOpen(false)}
        onKeyDown={onKeyDown}
      />
      <ul
        id={listId}
        ref={listRef}
        role="listbox"
        aria-label={label}
        className="graph-combobox-list"
        hidden={!expanded}
        data-loading={loading ? 'true' : 'false'}
        data-testid={testId ? `${testId}-options` : undefined}
      >
        {options.map((o, i) => (
          <li
            key={o}
            id={`${id}-opt-${i}`}
            role="option"
            aria-selected={i === active}
            data-index={i}
            data-value={o}
            className={i === active ? 'active' : undefined}
            // mousedown, not click: the input's blur would close the list first
            onMouseDown={(e) => {
              e.preventDefault();
              pick(o);
            }}
            onMouseMove={() => setActive(i)}
          >
            {renderOption ? renderOption(o) : o}
          </li>
        ))}
        {options.length === 0 && !loading && !error && (
          <li className="graph-combobox-note" role="presentation">
            {emptyText ?? t('graph.noMatches')}
          </li>
        )}
        {loading && (
          <li className="graph-combobox-note" role="presentation">
            {t('graph.searching')}
          </li>
        )}
        {error && (
          <li className="graph-combobox-note graph-combobox-error" role="presentation">
            {error}
          </li>
        )}
      </ul>
    </div>
  );
}
