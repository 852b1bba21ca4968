// Server status from /health: versions, directories, configuration, pipeline flags.
import { Dialog } from '../components/Dialog';
import { useStore } from '../lib/store';
import { health } from '../state/health';

export function StatusDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const h = useStore(health);
  const data = h.health;
  const config = (data?.configuration ?? {}) as Record<string, unknown>;
  return (
    <Dialog open={open} title="Server status" onClose={onClose} wide testId="status-dialog">
      {h.error && (
        <p className="form-error" role="alert">
          Last check failed: {h.error}
        </p>
      )}
      {!data ? (
        <p className="muted">No answer from /health yet.</p>
      ) : (
        <div className="status-grid">
          <section>
            <h3>Server</h3>
            <dl className="kv">
              <Row k="Status" v={data.status} />
              <Row k="Core version" v={data.core_version} />
              <Row k="API version" v={data.api_version} />
              <Row k="Authentication" v={data.auth_mode} />
              <Row k="Working directory" v={data.working_directory} />
              <Row k="Input directory" v={data.input_directory} />
              <Row k="Workspace" v={config.workspace} />
            </dl>
            <h3>Pipeline</h3>
            <dl className="kv">
              <Row k="Busy" v={data.pipeline_busy} />
              <Row k="Active" v={data.pipeline_active} />
              <Row k="Scanning" v={data.pipeline_scanning} />
              <Row k="Destructive job" v={data.pipeline_destructive_busy} />
              <Row k="Pending enqueues" v={data.pipeline_pending_enqueues} />
            </dl>
          </section>
          <section>
            <h3>Configuration</h3>
            <dl className="kv">
              {Object.entries(config).map(([k, v]) => (
                <Row key={k} k={k} v={v} />
              ))}
            </dl>
          </section>
        </div>
      )}
    </Dialog>
  );
}

function Row({ k, v }: { k: string; v: unknown }) {
  if (v === undefined) return null;
  const text = v === null ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  return (
    <>
      <dt>{k}</dt>
      <dd>{text}</dd>
    </>
  );
}
