// The element Sigma draws into. Creates the renderer on mount and kills it on unmount; follows
// the theme; keyboard: +/- zoom, 0 fits, arrows pan, Esc clears the selection.
import { useEffect, useRef } from 'react';
import { t } from '../../i18n';
import { useStore } from '../../lib/store';
import { theme } from '../../state/theme';
import type { GraphModel } from './model';
import { GraphRenderer, type RendererCallbacks } from './renderer';

export interface GraphCanvasProps {
  model: GraphModel;
  callbacks: RendererCallbacks;
  onReady: (r: GraphRenderer | null) => void;
  label: string;
}

export function GraphCanvas({ model, callbacks, onReady, label }: GraphCanvasProps) {
  const ref = useRef<HTMLDivElement>(null);
  const rendererRef = useRef<GraphRenderer | null>(null);
  const callbacksRef = useRef(callbacks);
  callbacksRef.current = callbacks;
  const themeChoice = useStore(theme);

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const r = new GraphRenderer(el, model, {
      onClickNode: (id, additive) => callbacksRef.current.onClickNode(id, additive),
      onClickEdge: (id) => callbacksRef.current.onClickEdge(id),
      onClickStage: () => callbacksRef.current.onClickStage(),
    });
    rendererRef.current = r;
    onReady(r);
    // the theme may also be switched by setting data-theme directly
    const observer = new MutationObserver(() => r.applyTheme());
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => {
      observer.disconnect();
      onReady(null);
      rendererRef.current = null;
      r.kill();
    };
  }, [model, onReady]);

  useEffect(() => {
    rendererRef.current?.applyTheme();
  }, [themeChoice]);

  const onKeyDown = (e: React.KeyboardEvent<HTMLDivElement>) => {
    const r = rendererRef.current;
    if (!r || e.target !== e.currentTarget) return;
    const step = 0.1;
    const keys: Record<string, () => void> = {
      '+': () => r.zoomIn(),
      '=': () => r.zoomIn(),
      '-': () => r.zoomOut(),
      '0': () => r.fit(),
      ArrowLeft: () => r.pan(-step, 0),
      ArrowRight: () => r.pan(step, 0),
      ArrowUp: () => r.pan(0, step),
      ArrowDown: () => r.pan(0, -step),
      Escape: () => callbacksRef.current.onClickStage(),
    };
    const action = keys[e.key];
    if (action) {
      e.preventDefault();
      action();
    }
  };

  return (
    <>
      {/* Sigma owns the container's children (it empties it when killed): the hint lives beside it */}
      <div
        ref={ref}
        className="graph-canvas"
        tabIndex={0}
        role="application"
        aria-label={label}
        aria-describedby="graph-canvas-keys"
        onKeyDown={onKeyDown}
        data-testid="graph-canvas"
      />
      <p id="graph-canvas-keys" className="visually-hidden">
        {t('graph.keys')}
      </p>
    </>
  );
}
