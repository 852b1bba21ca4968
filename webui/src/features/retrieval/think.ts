// Splits a model's `<think>…</think>` reasoning from its answer, also while the text is still
// arriving: an unfinished block is reasoning in progress, and a tag cut in half at the end of the
// text is held back rather than flashed as answer text.

export interface ThinkSplit {
  /** The reasoning (all think blocks, joined), or null when there is none. */
  reasoning: string | null;
  /** The answer without the reasoning. */
  answer: string;
  /** A think block is open (the model is still reasoning). */
  thinking: boolean;
}

const OPEN = '<think>';
const CLOSE = '</think>';

/** Length of the longest suffix of `text` that is a proper prefix of `tag`. */
function partialTagAtEnd(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) {
    if (tag.startsWith(text.slice(text.length - n).toLowerCase())) return n;
  }
  return 0;
}

export function splitThink(text: string, streaming: boolean): ThinkSplit {
  const lower = text.toLowerCase();
  const reasoning: string[] = [];
  let answer = '';
  let thinking = false;
  let pos = 0;

  // Some models (or servers) drop the opening tag: "reasoning</think>answer".
  const firstOpen = lower.indexOf(OPEN);
  const firstClose = lower.indexOf(CLOSE);
  if (firstClose >= 0 && (firstOpen < 0 || firstClose < firstOpen)) {
    reasoning.push(text.slice(0, firstClose));
    pos = firstClose + CLOSE.length;
  }

  while (pos < text.length) {
    const open = lower.indexOf(OPEN, pos);
    if (open < 0) {
      let tail = text.slice(pos);
      if (streaming) tail = tail.slice(0, tail.length - partialTagAtEnd(tail, OPEN));
      answer += tail;
      break;
    }
    answer += text.slice(pos, open);
    const start = open + OPEN.length;
    const close = lower.indexOf(CLOSE, start);
    if (close < 0) {
      let inner = text.slice(start);
      if (streaming) inner = inner.slice(0, inner.length - partialTagAtEnd(inner, CLOSE));
      reasoning.push(inner);
      thinking = streaming;
      break;
    }
    reasoning.push(text.slice(start, close));
    pos = close + CLOSE.length;
  }

  const joined = reasoning.map((r) => r.trim()).filter((r) => r !== '');
  return {
    reasoning: joined.length > 0 || thinking ? joined.join('\n\n') : null,
    answer: reasoning.length > 0 ? answer.replace(/^\s+/, '') : answer,
    thinking,
  };
}
