// How answers' Mermaid diagrams are configured, apart from Mermaid itself (so it can be tested
// without loading Mermaid): strict security, no HTML labels, bounded size, and no `%%{…}%%`
// directives from the answer (they could change the configuration).

/** The diagram source without `%%{…}%%` directives (configuration an answer may not set). */
export function mermaidSource(code: string): string {
  return code.replace(/%%\{[\s\S]*?\}%%/g, '').trim();
}

export const MERMAID_CONFIG = {
  startOnLoad: false,
  securityLevel: 'strict',
  htmlLabels: false,
  flowchart: { htmlLabels: false },
  maxTextSize: 20_000,
  maxEdges: 500,
} as const;
