// The query settings: every QueryParam the API takes, the history to send, and token prices.
// Numbers are validated as typed (errors inline); everything is kept across reloads.
import type { ReactNode } from 'react';
import { QUERY_MODES, type QueryMode } from '../../api/types';
import {
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
  const errors = validateSettings(settings);
  return (
    <div className="settings-form">
      <div className="field">
        <label htmlFor="qs-mode">
          <span>Mode</span>
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
        label="Response type"
        value={settings.responseType}
        onChange={(v) => update({ responseType: v })}
        list="qs-response-types"
        placeholder="Multiple Paragraphs"
      />
      <datalist id="qs-response-types">
        {RESPONSE_TYPES.map((t) => (
          <option key={t} value={t} />
        ))}
      </datalist>

      <div className="field">
        <label htmlFor="qs-user-prompt">
          <span>User prompt</span>
        </label>
        <textarea
          id="qs-user-prompt"
          rows={2}
          value={settings.userPrompt}
          placeholder="Extra instructions for the answer"
          onChange={(e) => update({ userPrompt: e.target.value })}
        />
      </div>

      <Group title="Retrieval">
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
        <p className="muted settings-hint">Values left at their default use the server's configuration.</p>
        <Check label="Rerank chunks" checked={settings.enableRerank} onChange={(v) => update({ enableRerank: v })} />
      </Group>

      <Group title="Output">
        <Check label="Stream the answer" checked={settings.stream} onChange={(v) => update({ stream: v })} testId="qs-stream" />
        <Check
          label="Only the context (no answer)"
          checked={settings.onlyNeedContext}
          onChange={(v) => update({ onlyNeedContext: v })}
        />
        <Check
          label="Only the prompt (no answer)"
          checked={settings.onlyNeedPrompt}
          onChange={(v) => update({ onlyNeedPrompt: v })}
        />
        <Check
          label="Include references"
          checked={settings.includeReferences}
          onChange={(v) => update({ includeReferences: v })}
        />
        <Check
          label="Include chunk texts in references"
          checked={settings.includeChunkContent}
          disabled={!settings.includeReferences}
          onChange={(v) => update({ includeChunkContent: v })}
        />
      </Group>

      <Group title="Keywords">
        <TextField
          id="qs-hl"
          label="High-level keywords"
          value={settings.hlKeywords}
          onChange={(v) => update({ hlKeywords: v })}
          placeholder="comma, separated"
        />
        <TextField
          id="qs-ll"
          label="Low-level keywords"
          value={settings.llKeywords}
          onChange={(v) => update({ llKeywords: v })}
          placeholder="comma, separated"
          hint="Given keywords replace the LLM's keyword extraction."
        />
      </Group>

      <Group title="Conversation history">
        <TextField
          id="qs-history"
          label="Previous turns to send"
          value={settings.historyTurns}
          onChange={(v) => update({ historyTurns: v })}
          error={errors.historyTurns}
          numeric="numeric"
          placeholder="3"
        />
        <Check
          label="Send in every mode"
          checked={settings.historyInAllModes}
          onChange={(v) => update({ historyInAllModes: v })}
          hint="LightRAG sends the history only in bypass mode"
        />
        <p className="muted settings-hint">
          {settings.historyInAllModes ? 'History goes with every question.' : 'History goes only with bypass questions, as in LightRAG.'}
        </p>
      </Group>

      <Group title="Cost">
        <div className="settings-grid">
          <TextField
            id="qs-price-in"
            label="Input / 1M tokens"
            value={settings.priceIn}
            onChange={(v) => update({ priceIn: v })}
            error={errors.priceIn}
            numeric="decimal"
            placeholder="e.g. 0.15"
          />
          <TextField
            id="qs-price-out"
            label="Output / 1M tokens"
            value={settings.priceOut}
            onChange={(v) => update({ priceOut: v })}
            error={errors.priceOut}
            numeric="decimal"
            placeholder="e.g. 0.60"
          />
        </div>
        <p className="muted settings-hint">Empty: tokens only. Prices stay when the settings are reset.</p>
      </Group>
    </div>
  );
}
