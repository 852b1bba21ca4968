// Example questions of the empty conversation.

export const GENERIC_EXAMPLES = [
  'What are the main topics of these documents?',
  'Summarise the key entities and how they are related.',
];

/** Example questions about the graph's most connected entities, then the generic ones. */
export function examplesFrom(labels: string[]): string[] {
  const names = labels.filter((l) => l.trim() !== '' && l.length <= 60).slice(0, 3);
  const out: string[] = [];
  if (names[0]) out.push(`Who or what is ${names[0]}?`);
  if (names[1] && names[2]) out.push(`How are ${names[1]} and ${names[2]} related?`);
  else if (names[1]) out.push(`What do the documents say about ${names[1]}?`);
  return [...out, ...GENERIC_EXAMPLES];
}
