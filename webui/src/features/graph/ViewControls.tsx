// Zoom in / out, fit, fullscreen: a small column of buttons over the graph.
import { useEffect, useState } from 'react';
import { t } from '../../i18n';
import type { GraphRenderer } from './renderer';

/** Small stroke icons (currentColor) for the buttons whose glyphs fonts lack. */
function Icon({ d }: { d: string }) {
  return (
    <svg width="16" height="16" viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
      <path d={d} />
    </svg>
  );
}

const FIT = 'M2 6V2h4M10 2h4v4M14 10v4h-4M6 14H2v-4M5.5 8h5M8 5.5v5';
const ENTER_FULL = 'M2 6V2h4M10 2h4v4M14 10v4h-4M6 14H2v-4';
const LEAVE_FULL = 'M6 2v4H2M14 6h-4V2M10 14v-4h4M2 10h4v4';

export function ViewControls({ renderer, fullscreenTarget }: { renderer: GraphRenderer | null; fullscreenTarget: () => HTMLElement | null }) {
  const [fullscreen, setFullscreen] = useState(false);
  useEffect(() => {
    const onChange = () => setFullscreen(document.fullscreenElement !== null && document.fullscreenElement === fullscreenTarget());
    document.addEventListener('fullscreenchange', onChange);
    return () => document.removeEventListener('fullscreenchange', onChange);
  }, [fullscreenTarget]);
  const canFullscreen = typeof document !== 'undefined' && document.fullscreenEnabled;
  const toggleFullscreen = () => {
    const el = fullscreenTarget();
    if (!el) return;
    // refused (no user gesture, a policy): the button simply does nothing
    if (document.fullscreenElement) void document.exitFullscreen().catch(() => undefined);
    else void el.requestFullscreen().catch(() => undefined);
  };
  return (
    <div className="graph-view-controls" role="group" aria-label={t('graph.view')}>
      <button type="button" className="icon-button" aria-label={t('graph.zoomIn')} title={t('graph.zoomInTitle')} onClick={() => renderer?.zoomIn()} data-testid="graph-zoom-in">
        +
      </button>
      <button type="button" className="icon-button" aria-label={t('graph.zoomOut')} title={t('graph.zoomOutTitle')} onClick={() => renderer?.zoomOut()} data-testid="graph-zoom-out">
        −
      </button>
      <button type="button" className="icon-button" aria-label={t('graph.fit')} title={t('graph.fitTitle')} onClick={() => renderer?.fit()} data-testid="graph-fit">
        <Icon d={FIT} />
      </button>
      {canFullscreen && (
        <button
          type="button"
          className="icon-button"
          aria-label={fullscreen ? t('graph.leaveFull') : t('graph.full')}
          aria-pressed={fullscreen}
          title={fullscreen ? t('graph.leaveFull') : t('graph.full')}
          onClick={toggleFullscreen}
          data-testid="graph-fullscreen"
        >
          <Icon d={fullscreen ? LEAVE_FULL : ENTER_FULL} />
        </button>
      )}
    </div>
  );
}
