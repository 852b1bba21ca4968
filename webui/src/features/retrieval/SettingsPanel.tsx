// The query settings: every QueryParam the API takes, the history to send, and token prices.
// Numbers are validated as typed (errors inline); everything is kept across reloads.
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { QUERY_MODES, type QueryMode } from '../../api/types';
import {
  DEFAULT_RESPONSE_TYPE,
  MODE_HELP,
  MODE_LABELS,
  NUMBER_FIELDS,
  RESPONSE_TYPES,
  validateSettings,
  type QuerySettings,
} from './settings';

type Update = (patch: Partial<QuerySettings>) => void;

function TextField({
  id,
  label,
  value,
  onChange,
  error,
  hint,
  numeric,
  placeholder,
  list,
  testId,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (v: string) => void;
  error?: string;
  hint?: string;
  numeric?: 'numeric' | 'decimal';
  placeholder?: string;
  list?: string;
  testId?: string;
}) {
  const described = [error ? `${id}-error` : null, hint ? `${id}-hint` : null].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>
        <span>{label}</span>
      </label>
      <input
        id={id}
        type="text"
        inputMode={numeric}
        value={value}
        placeholder={placeholder}
        list={list}
        autoComplete="off"
        aria-invalid={error ? true : undefined}
        aria-describedby={described || undefined}
        onChange={(e) => onChange(e.target.value)}
        data-testid={testId}
      />
      {hint && !error && (
        <small id={`${id}-hint`} className="muted settings-hint">
          {hint}
        </small>
      )}
      {error && (
        <small id={`${id}-error`} className="settings-error">
          {error}
        </small>
      )}
    </div>
  );
}

function Check({
  label,
  checked,
  onChange,
  disabled,
  hint,
  testId,
}: {
  label: string;
  checked: boolean;
  onChange: (v: boolean) => void;
  disabled?: boolean;
  hint?: string;
  testId?: string;
}) {
  return (
    <label className="checkbox settings-check" title={hint}>
      <input
        type="checkbox"
        checked={checked}
        disabled={disabled}
        onChange={(e) => onChange(e.target.checked)}
        data-testid={testId}
      />
      <span>{label}</span>
    </label>
  );
}

function Group({ title, children }: { title: string; children: ReactNode }) {
  return (
    <fieldset className="settings-group">
      <legend>{title}</legend>
      {children}
    </fieldset>
  );
}

export function SettingsPanel({ settings, update }: { settings: QuerySettings; update: Update }) {
  const { t } = useTranslation();
  const errors = validateSettings(settings);
  return (
    <div className="settings-form">
      <div className="field">
        <label htmlFor="qs-mode">
          <span>{t('retrieval.settings.mode')}</span>
        </label>
        <select
          id="qs-mode"
          value={settings.mode}
          onChange={(e) => update({ mode: e.target.value as QueryMode })}
          aria-describedby="qs-mode-hint"
          data-testid="retrieval-mode"
        >
          {QUERY_MODES.map((m) => (
            <option key={m} value={m}>
              {MODE_LABELS[m]}
            </option>
          ))}
        </select>
        <small id="qs-mode-hint" className="muted settings-hint">
          {MODE_HELP[settings.mode]}
        </small>
      </div>

      <TextField
        id="qs-response-type"
        label={t('retrieval.settings.responseType')}
        value={settings.responseType}
        onChange={(v) => update({ responseType: v })}
        list="qs-response-types"
        placeholder={DEFAULT_RESPONSE_TYPE}
      />
      <datalist id="qs-response-types">
        {RESPONSE_TYPES.map((r) => (
          <option key={r} value={r} />
        ))}
      </datalist>

      <div className="field">
        <label htmlFor="qs-user-prompt">
          <span>{t('retrieval.settings.userPrompt')}</span>
        </label>
        <textarea
          id="qs-user-prompt"
          rows={2}
          value={settings.userPrompt}
          placeholder={t('retrieval.settings.userPromptPlaceholder')}
          onChange={(e) => update({ userPrompt: e.target.value })}
        />
      </div>

      <Group title={t('retrieval.settings.retrieval')}>
        <div className="settings-grid">
          {NUMBER_FIELDS.map((f) => (
            <TextField
              key={f.key}
              id={`qs-${f.api}`}
              label={f.label}
              value={settings[f.key]}
              onChange={(v) => update({ [f.key]: v })}
              error={errors[f.key]}
              numeric="numeric"
              placeholder={String(f.default)}
              testId={`qs-${f.api}`}
            />
          ))}
        </div>
        <p className="muted settings-hint">{t('retrieval.settings.defaults')}</p>
        <Check label={t('retrieval.settings.rerank')} checked={settings.enableRerank} onChange={(v) => update({ enableRerank: v })} />
      </Group>

      <Group title={t('retrieval.settings.output')}>
        <Check label={t('retrieval.settings.stream')} checked={settings.stream} onChange={(v) => update({ stream: v })} testId="qs-stream" />
        <Check
          label={t('retrieval.settings.onlyContext')}
          checked={settings.onlyNeedContext}
          onChange={(v) => update({ onlyNeedContext: v })}
        />
        <Check
          label={t('retrieval.settings.onlyPrompt')}
          checked={settings.onlyNeedPrompt}
          onChange={(v) => update({ onlyNeedPrompt: v })}
        />
        <Check
          label={t('retrieval.settings.references')}
          checked={settings.includeReferences}
          onChange={(v) => update({ includeReferences: v })}
        />
        <Check
          label={t('retrieval.settings.chunkTexts')}
          checked={settings.includeChunkContent}
          disabled={!settings.includeReferences}
          onChange={(v) => update({ includeChunkContent: v })}
        />
      </Group>

      <Group title={t('retrieval.settings.keywords')}>
        <TextField
          id="qs-hl"
          label={t('retrieval.settings.hl')}
          value={settings.hlKeywords}
          onChange={(v) => update({ hlKeywords: v })}
          placeholder={t('retrieval.settings.commaSeparated')}
        />
        <TextField
          id="qs-ll"
          label={t('retrieval.settings.ll')}
          value={settings.llKeywords}
          onChange={(v) => update({ llKeywords: v })}
          placeholder={t('retrieval.settings.commaSeparated')}
          hint={t('retrieval.settings.keywordsHint')}
        />
      </Group>

      <Group title={t('retrieval.settings.history')}>
        <TextField
          id="qs-history"
          label={t('retrieval.settings.turns')}
          value={settings.historyTurns}
          onChange={(v) => update({ historyTurns: v })}
          error={errors.historyTurns}
          numeric="numeric"
          placeholder="3"
        />
        <Check
          label={t('retrieval.settings.allModes')}
          checked={settings.historyInAllModes}
          onChange={(v) => update({ historyInAllModes: v })}
          hint={t('retrieval.settings.allModesHint')}
        />
        <p className="muted settings-hint">
          {settings.historyInAllModes ? t('retrieval.settings.historyAll') : t('retrieval.settings.historyBypass')}
        </p>
      </Group>

      <Group title={t('retrieval.settings.cost')}>
        <div className="settings-grid">
          <TextField
            id="qs-price-in"
            label={t('retrieval.settings.priceIn')}
            value={settings.priceIn}
            onChange={(v) => update({ priceIn: v })}
            error={errors.priceIn}
            numeric="decimal"
            placeholder={t('retrieval.settings.priceExample', { price: '0.15' })}
          />
          <TextField
            id="qs-price-out"
            label={t('retrieval.settings.priceOut')}
            value={settings.priceOut}
            onChange={(v) => update({ priceOut: v })}
            error={errors.priceOut}
            numeric="decimal"
            placeholder={t('retrieval.settings.priceExample', { price: '0.60' })}
          />
        </div>
        <p className="muted settings-hint">{t('retrieval.settings.priceHint')}</p>
      </Group>
    </div>
  );
}
