import { useTranslation } from 'react-i18next';

/**
 * A busy indicator. It announces its label (role=status) when it appears; `quiet` spinners are
 * only drawn — for activity that repeats by itself (a background refresh every few seconds) and
 * would otherwise be read out again and again.
 */
export function Spinner({ label, quiet = false }: { label?: string; quiet?: boolean }) {
  const { t } = useTranslation();
  if (quiet) {
    return (
      <span className="spinner" aria-hidden="true">
        <span className="spinner-dot" />
      </span>
    );
  }
  return (
    <span className="spinner" role="status" aria-live="polite">
      <span className="spinner-dot" aria-hidden="true" />
      <span className="visually-hidden">{label ?? t('common.loading')}</span>
    </span>
  );
}
