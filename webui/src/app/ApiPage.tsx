// The API tab: the server's Swagger UI (/docs), embedded, with a link to open it on its own.
import { Trans, useTranslation } from 'react-i18next';
import { runtimeConfig } from '../config';

export function ApiPage() {
  const { t } = useTranslation();
  const docs = `${runtimeConfig.apiPrefix}/docs`;
  return (
    <div className="api-page">
      <p className="api-page-bar">
        <Trans t={t} i18nKey="api.docs" components={{ link: <a href={`${runtimeConfig.apiPrefix}/openapi.json`} /> }} /> ·{' '}
        <a href={docs} target="_blank" rel="noopener noreferrer">
          {t('api.newTab')}
        </a>
      </p>
      <iframe className="api-frame" src={docs} title={t('api.frame')} />
    </div>
  );
}
