// A confirmation dialog; with `typed`, the user must type that word to confirm (for clear-all).
import { useState, type ReactNode } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Dialog } from './Dialog';

export interface ConfirmProps {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  typed?: string;
  busy?: boolean;
  onConfirm: () => void;
  onClose: () => void;
}

export function Confirm({ open, title, children, confirmLabel, danger, typed, busy, onConfirm, onClose }: ConfirmProps) {
  const { t } = useTranslation();
  const [text, setText] = useState('');
  const ready = !typed || text.trim() === typed;
  const close = () => {
    setText('');
    onClose();
  };
  return (
    <Dialog
      open={open}
      title={title}
      onClose={close}
      footer={
        <>
          <button type="button" className="btn" onClick={close}>
            {t('common.cancel')}
          </button>
          <button
            type="button"
            className={danger ? 'btn btn-danger' : 'btn btn-primary'}
            disabled={!ready || busy}
            onClick={() => {
              setText('');
              onConfirm();
            }}
          >
            {confirmLabel}
          </button>
        </>
      }
    >
      {children}
      {typed && (
        <label className="field">
          <span>
            <Trans t={t} i18nKey="common.typeToConfirm" values={{ word: typed }} components={{ code: <code /> }} />
          </span>
          <input value={text} onChange={(e) => setText(e.target.value)} autoFocus />
        </label>
      )}
    </Dialog>
  );
}
