// What a fresh knowledge base shows instead of an empty table.
import { useStore } from '../../lib/store';
import { health } from '../../state/health';

export function EmptyState({ onUpload, onScan, scanning }: { onUpload: () => void; onScan: () => void; scanning: boolean }) {
  const inputDir = useStore(health, (h) => h.health?.input_directory);
  return (
    <div className="docs-empty" data-testid="docs-empty">
      <div className="docs-empty-icon" aria-hidden="true">
        ⇪
      </div>
      <h2>No documents yet</h2>
      <p>
        Add documents to build the knowledge graph: each one is split into chunks, its entities and relations are extracted
        by the LLM and merged into the graph.
      </p>
      <div className="docs-empty-ways">
        <div>
          <h3>Upload files</h3>
          <p className="muted">Drag files onto this page or pick them: PDF, DOCX, PPTX, XLSX, HTML, Markdown, text, code…</p>
          <button type="button" className="btn btn-primary" onClick={onUpload}>
            Upload files
          </button>
        </div>
        <div>
          <h3>Scan the input folder</h3>
          <p className="muted">
            Copy files into the server's input directory
            {inputDir ? (
              <>
                {' '}
                <code className="docs-inputdir">{inputDir}</code>
              </>
            ) : null}
            , then scan it to index the new ones.
          </p>
          <button type="button" className="btn" onClick={onScan} disabled={scanning}>
            {scanning ? 'Scanning…' : 'Scan for new files'}
          </button>
        </div>
      </div>
    </div>
  );
}
