import { describe, expect, it } from 'vitest';
import { splitThink } from './think';

describe('splitThink', () => {
  it('passes an answer without reasoning through', () => {
    expect(splitThink('Hello **world**', false)).toEqual({ reasoning: null, answer: 'Hello **world**', thinking: false });
  });
  it('separates a closed think block', () => {
    expect(splitThink('<think>\nplan it\n</think>\n\nThe answer.', false)).toEqual({
      reasoning: 'plan it',
      answer: 'The answer.',
      thinking: false,
    });
  });
  it('treats an unfinished block as reasoning in progress while streaming', () => {
    expect(splitThink('<think>still going', true)).toEqual({ reasoning: 'still going', answer: '', thinking: true });
    expect(splitThink('<think>', true)).toEqual({ reasoning: '', answer: '', thinking: true });
  });
  it('holds back a tag cut at the end of the streamed text', () => {
    expect(splitThink('Hello <thi', true).answer).toBe('Hello ');
    expect(splitThink('Hello <thi', false).answer).toBe('Hello <thi');
    expect(splitThink('<think>abc</thi', true)).toEqual({ reasoning: 'abc', answer: '', thinking: true });
    expect(splitThink('a < b', true).answer).toBe('a < b');
  });
  it('joins several blocks and keeps the text around them', () => {
    const s = splitThink('<think>one</think>First. <THINK>two</THINK>Second.', false);
    expect(s.reasoning).toBe('one\n\ntwo');
    expect(s.answer).toBe('First. Second.');
  });
  it('handles a missing opening tag', () => {
    expect(splitThink('reasoning here</think>Answer', false)).toEqual({
      reasoning: 'reasoning here',
      answer: 'Answer',
      thinking: false,
    });
  });
  it('an empty closed block is no reasoning', () => {
    expect(splitThink('<think> </think>Answer', false)).toEqual({ reasoning: null, answer: 'Answer', thinking: false });
  });
});
