// Example questions of the empty conversation.
import { t } from '../../i18n';

/** Questions for any knowledge base, in the UI's language. */
export function genericExamples(): string[] {
  return [t('retrieval.examples.topics'), t('retrieval.examples.entities')];
}

/** Example questions about the graph's most connected entities, then the generic ones. */
export function examplesFrom(labels: string[]): string[] {
  const names = labels.filter((l) => l.trim() !== '' && l.length <= 60).slice(0, 3);
  const out: string[] = [];
  if (names[0]) out.push(t('retrieval.examples.who', { name: names[0] }));
  if (names[1] && names[2]) out.push(t('retrieval.examples.how', { a: names[1], b: names[2] }));
  else if (names[1]) out.push(t('retrieval.examples.about', { name: names[1] }));
  return [...out, ...genericExamples()];
}
