// The UI's language: a select in the header listing each offered language in itself. The choice
// is remembered (localStorage); without one the browser's languages decide (src/i18n).
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { language, setLanguage } from '../i18n';
import { LANGUAGES } from '../i18n/languages';
import { useStore } from '../lib/store';

export function LanguagePicker() {
  const { t } = useTranslation();
  const current = useStore(language);
  const id = useId();
  return (
    <div className="language-picker">
      <label htmlFor={id} className="visually-hidden">
        {t('header.language')}
      </label>
      <select
        id={id}
        value={current}
        data-testid="language-select"
        title={t('header.language')}
        onChange={(e) => void setLanguage(e.target.value)}
      >
        {LANGUAGES.map((l) => (
          <option key={l.code} value={l.code} lang={l.code}>
            {l.name}
          </option>
        ))}
      </select>
    </div>
  );
}
