import { describe, expect, it } from 'vitest';
import { MERMAID_CONFIG, mermaidSource } from './diagramConfig';

describe('Mermaid diagrams of answers', () => {
  it('run with strict security and no HTML labels', () => {
    expect(MERMAID_CONFIG.securityLevel).toBe('strict');
    expect(MERMAID_CONFIG.htmlLabels).toBe(false);
    expect(MERMAID_CONFIG.flowchart.htmlLabels).toBe(false);
  });

  it('drop %%{init}%% directives an answer uses to loosen the configuration', () => {
    const hostile = '%%{init: {"securityLevel": "loose", "htmlLabels": true}}%%\ngraph TD\nA --> B\n%%{ init: { "theme": "base" } }%%';
    const source = mermaidSource(hostile);
    expect(source).not.toContain('%%{');
    expect(source).not.toContain('loose');
    expect(source).toBe('graph TD\nA --> B');
  });
});
