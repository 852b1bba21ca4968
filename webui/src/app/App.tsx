// The application: the login gate, then the header and the four pages. Pages stay mounted once
// visited (the graph and the chat keep their state across tab switches) and are re-created when
// the workspace changes.
import { lazy, Suspense, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Notices } from '../components/Notices';
import { Spinner } from '../components/Spinner';
import { runtimeConfig } from '../config';
import { DocumentsPage } from '../features/documents/DocumentsPage';
import { RetrievalPage } from '../features/retrieval/RetrievalPage';
import { useStore } from '../lib/store';
import { pollHealth } from '../state/health';
import { listenToHash, type Page, route } from '../state/navigation';
import { ApiPage } from './ApiPage';
import { Header } from './Header';
import { LoginPage } from './LoginPage';
import { server, session } from './services';

const GraphPage = lazy(() => import('../features/graph/GraphPage').then((m) => ({ default: m.GraphPage })));

export function App() {
  const { t } = useTranslation();
  const gate = useStore(session.store, (s) => s.gate);
  const title = useStore(session.store, (s) => s.title);
  useEffect(() => {
    void session.start();
    return listenToHash();
  }, []);
  useEffect(() => {
    document.title = title ?? runtimeConfig.title;
  }, [title]);

  if (gate === 'checking') {
    return (
      <main className="center-page">
        <Spinner label={t('app.connecting')} />
      </main>
    );
  }
  if (gate === 'offline') return <Offline />;
  if (gate === 'login' || gate === 'apikey') return <LoginPage />;
  return <Shell />;
}

function Offline() {
  const { t } = useTranslation();
  const message = useStore(session.store, (s) => s.message);
  return (
    <main className="center-page">
      <div className="login-card">
        <h1>{t('app.offlineTitle')}</h1>
        <p className="muted">{message}</p>
        <button type="button" className="btn btn-primary" onClick={() => void session.start()}>
          {t('common.tryAgain')}
        </button>
      </div>
    </main>
  );
}

function Shell() {
  const { t } = useTranslation();
  const page = useStore(route, (r) => r.page);
  const workspace = useStore(session.store, (s) => s.workspace);
  const [visited, setVisited] = useState<Set<Page>>(() => new Set([page]));
  useEffect(() => pollHealth(() => server.health()), [workspace]);
  useEffect(() => {
    setVisited((v) => (v.has(page) ? v : new Set([...v, page])));
  }, [page]);
  return (
    <div className="app">
      <Header />
      <div className="pages" key={workspace}>
        {visited.has('documents') && (
          <section className="page" hidden={page !== 'documents'} aria-label={t('app.pageDocuments')}>
            <DocumentsPage active={page === 'documents'} />
          </section>
        )}
        {visited.has('graph') && (
          <section className="page" hidden={page !== 'graph'} aria-label={t('app.pageGraph')}>
            <Suspense fallback={<Spinner label={t('app.loadingGraph')} />}>
              <GraphPage active={page === 'graph'} />
            </Suspense>
          </section>
        )}
        {visited.has('retrieval') && (
          <section className="page" hidden={page !== 'retrieval'} aria-label={t('app.pageRetrieval')}>
            <RetrievalPage active={page === 'retrieval'} />
          </section>
        )}
        {visited.has('api') && (
          <section className="page" hidden={page !== 'api'} aria-label={t('app.pageApi')}>
            <ApiPage />
          </section>
        )}
      </div>
      <Notices />
    </div>
  );
}
