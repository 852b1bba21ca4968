// The documents of one track id (an upload, insert or scan), refreshed until none is pending or
// being processed.
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { describeError } from '../../api/errors';
import type { DocStatus, DocStatusResponse, TrackStatus } from '../../api/types';
import { server } from '../../app/services';
import { Dialog } from '../../components/Dialog';
import { Spinner } from '../../components/Spinner';
import { formatCount } from '../../lib/text';
import { formatDateTime } from './format';
import { TRACK_MS } from './polling';
import { StatusBadge } from './StatusBadge';
import { summaryOf, trackSettled } from './trackView';
import { usePolling } from './usePolling';

export function TrackDialog({
  trackId,
  active,
  visible,
  onClose,
  onOpen,
}: {
  trackId: string | null;
  active: boolean;
  visible: boolean;
  onClose: () => void;
  onOpen: (doc: DocStatusResponse) => void;
}) {
  const { t } = useTranslation();
  const [track, setTrack] = useState<TrackStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [shownFor, setShownFor] = useState<string | null>(null);
  if (shownFor !== trackId) {
    // a new track: forget the previous one's answer
    setShownFor(trackId);
    setTrack(null);
    setError(null);
  }
  const settled = track !== null && track.track_id === trackId && trackSettled(track);
  usePolling(
    async (_signal, current) => {
      if (!trackId) return true;
      try {
        const answer = await server.trackStatus(trackId);
        if (!current()) return true;
        setTrack(answer);
        setError(null);
        return true;
      } catch (e) {
        if (!current()) return true;
        setError(describeError(e));
        return false;
      }
    },
    { enabled: trackId !== null && active && visible, interval: settled ? null : TRACK_MS, kick: trackId },
  );
  const summary = track ? summaryOf(track) : {};
  return (
    <Dialog open={trackId !== null} title={t('docs.track.title')} onClose={onClose} wide testId="docs-track-dialog">
      <p className="docs-track-id">
        <span className="muted">{t('docs.track.id')}</span> <code data-testid="docs-track-id">{trackId}</code>
        {track && !settled && (
          <span className="docs-track-live">
            <Spinner quiet /> {t('docs.track.following')}
          </span>
        )}
      </p>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {!track && !error && <Spinner label={t('docs.track.loading')} />}
      {track && (
        <>
          <div className="docs-track-summary" data-testid="docs-track-summary">
            <span>{t('docs.track.total', { count: track.total_count })}</span>
            {(Object.entries(summary) as [DocStatus, number][]).map(([status, n]) => (
              <span key={status} className="docs-track-count">
                <StatusBadge status={status} /> {formatCount(n)}
              </span>
            ))}
          </div>
          {track.documents.length === 0 ? (
            <p className="muted">{t('docs.track.none')}</p>
          ) : (
            <div className="table-wrap docs-track-table">
              <table className="table">
                <thead>
                  <tr>
                    <th>{t('docs.track.file')}</th>
                    <th>{t('docs.track.status')}</th>
                    <th>{t('docs.track.chunks')}</th>
                    <th>{t('docs.track.updated')}</th>
                  </tr>
                </thead>
                <tbody>
                  {track.documents.map((d) => (
                    <tr key={d.id} data-testid="docs-track-row" data-status={d.status}>
                      <td>
                        <button type="button" className="link-button docs-file" onClick={() => onOpen(d)}>
                          {d.file_path || d.id}
                        </button>
                        {d.error_msg && <span className="docs-error">{d.error_msg}</span>}
                      </td>
                      <td>
                        <StatusBadge status={d.status} />
                      </td>
                      <td>{formatCount(d.chunks_count)}</td>
                      <td>{formatDateTime(d.updated_at)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </Dialog>
  );
}
