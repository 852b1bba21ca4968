import { describe, expect, it } from 'vitest';
import { examplesFrom, genericExamples } from './examples';

describe('examplesFrom', () => {
  it('asks about the first entities, then the generic questions', () => {
    expect(examplesFrom(['Ada', 'Babbage', 'Engine', 'More'])).toEqual([
      'Who or what is Ada?',
      'How are Babbage and Engine related?',
      ...genericExamples(),
    ]);
    expect(examplesFrom(['Ada', 'Babbage'])[1]).toBe('What do the documents say about Babbage?');
  });
  it('skips blank and very long names; no names → generic only', () => {
    expect(examplesFrom(['', 'x'.repeat(61)])).toEqual(genericExamples());
    expect(examplesFrom([])).toEqual(genericExamples());
  });
});
