/**
 * An upper bound on the number of instructions RE2 (re2js) compiles a pattern into, read from the
 * pattern's text without building anything. Counted repetition is what makes a short pattern a
 * huge program — `(?:.?){1000}` repeats its body a thousand times, and nesting multiplies — and
 * re2js expands it in full, in memory, before it can say how big the result is. So this bound is
 * checked first, and only a pattern under it is compiled.
 *
 * It follows RE2's compiler with every cost rounded up: a literal character, a class, `.`, an
 * assertion or an escape is one instruction; a capture adds two; `*`, `+` and `?` add two; each
 * `|` adds one; `x{n}` is n copies of x, `x{n,}` n copies and a loop, and `x{n,m}` m copies with
 * m − n optional branches. Whatever it cannot read is counted as a literal: the engine refuses it
 * when it compiles. Quantifiers are multiplied out over the whole of what they follow (a quoted
 * `\Q…\E` run counts as one atom), which only ever over-counts.
 */
export function programSizeBound(pattern: string): number {
  const reader = new Reader(pattern);
  let size = reader.alternation();
  // An unbalanced `)` ends the parse early; count the rest as literals and let the engine refuse it.
  while (!reader.done()) {
    reader.next();
    size += reader.alternation() + 1;
  }
  // The program's FAIL and MATCH instructions.
  return size + 2;
}

/** RE2's largest repetition count (`{1001}` does not compile). */
const MAX_REPEAT = 1000;
/** `{n}`, `{n,}` or `{n,m}`; any other `{` is a literal. */
const REPEAT = /\{(\d+)(,(\d*))?\}/y;
/** After `(`: `?P<name>` or `?<name>` (a named capture), `?flags:` (a group) or `?flags)` (no group). */
const GROUP_HEAD = /\?(P?<\w*>|[a-zA-Z-]*[:)]|)/y;

class Reader {
  private at = 0;

  constructor(private readonly text: string) {}

  done(): boolean {
    return this.at >= this.text.length;
  }

  next(): string {
    const char = this.text[this.at] ?? '';
    this.at += 1;
    return char;
  }

  private peek(): string {
    return this.text[this.at] ?? '';
  }

  /** Matches a sticky expression here and moves past what it matched. */
  private read(expression: RegExp): RegExpExecArray | null {
    expression.lastIndex = this.at;
    const found = expression.exec(this.text);
    if (found) this.at += found[0].length;
    return found;
  }

  /** `a|b|c`, up to an unmatched `)` or the end. */
  alternation(): number {
    let size = this.concatenation();
    while (this.peek() === '|') {
      this.at += 1;
      size += this.concatenation() + 1;
    }
    return size;
  }

  private concatenation(): number {
    let size = 0;
    while (!this.done() && this.peek() !== '|' && this.peek() !== ')') {
      size += this.quantified(this.atom());
    }
    // An empty branch compiles to one no-op.
    return Math.max(1, size);
  }

  /** The size of an atom followed by any number of quantifiers (each applies to all before it). */
  private quantified(atom: number): number {
    let size = atom;
    for (;;) {
      const char = this.peek();
      if (char === '*' || char === '+' || char === '?') {
        this.at += 1;
        size += 2;
      } else if (char === '{') {
        const repeat = this.read(REPEAT);
        if (!repeat) return size;
        const min = Math.min(Number(repeat[1]), MAX_REPEAT);
        const max = repeat[2] === undefined ? min : repeat[3] === '' ? -1 : Math.min(Number(repeat[3]), MAX_REPEAT);
        size = max === -1 ? Math.max(1, min) * size + 2 : Math.max(1, max * size + (max - min));
      } else {
        return size;
      }
      // A non-greedy marker after any quantifier changes the order of branches, not their number.
      if (this.peek() === '?') this.at += 1;
    }
  }

  private atom(): number {
    const char = this.next();
    if (char === '(') return this.group();
    if (char === '[') return this.characterClass();
    if (char === '\\') return this.escape();
    return 1;
  }

  /** After `(`: a capture, a group, or a flag setting such as `(?i)`. */
  private group(): number {
    let capture = true;
    if (this.peek() === '?') {
      const form = this.read(GROUP_HEAD)?.[1] ?? '';
      if (form.endsWith(')')) return 0;
      capture = form.includes('<');
    }
    const inner = this.alternation();
    if (this.peek() === ')') this.at += 1;
    return inner + (capture ? 2 : 0);
  }

  /** After `[`: up to the closing `]` (one instruction whatever it holds). */
  private characterClass(): number {
    if (this.peek() === '^') this.at += 1;
    // A `]` first in a class is a member.
    if (this.peek() === ']') this.at += 1;
    while (!this.done()) {
      const char = this.next();
      if (char === ']') return 1;
      if (char === '\\') this.at += 1;
      else if (char === '[' && this.peek() === ':') {
        const end = this.text.indexOf(':]', this.at + 1);
        if (end !== -1) this.at = end + 2;
      }
    }
    return 1;
  }

  /** After `\`: one instruction, or a quoted `\Q…\E` run of literals. */
  private escape(): number {
    const char = this.next();
    if (char === 'Q') {
      const end = this.text.indexOf('\\E', this.at);
      const stop = end === -1 ? this.text.length : end;
      const length = stop - this.at;
      this.at = end === -1 ? stop : stop + 2;
      return Math.max(1, length);
    }
    if ((char === 'p' || char === 'P' || char === 'x') && this.peek() === '{') {
      const end = this.text.indexOf('}', this.at);
      if (end !== -1) this.at = end + 1;
    }
    return 1;
  }
}
