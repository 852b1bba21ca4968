// The API tab: the server's Swagger UI (/docs), embedded, with a link to open it on its own.
import { runtimeConfig } from '../config';

export function ApiPage() {
  const docs = `${runtimeConfig.apiPrefix}/docs`;
  return (
    <div className="api-page">
      <p className="api-page-bar">
        Interactive API documentation (OpenAPI: <a href={`${runtimeConfig.apiPrefix}/openapi.json`}>openapi.json</a>)
        · <a href={docs} target="_blank" rel="noopener noreferrer">Open in a new tab</a>
      </p>
      <iframe className="api-frame" src={docs} title="API documentation" />
    </div>
  );
}
