import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { programSizeBound } from './program-size';

/** The instructions re2js compiles the pattern into, or null when it refuses it. */
function compiledSize(pattern: string): number | null {
  try {
    return RE2JS.compile(pattern).programSize();
  } catch {
    return null;
  }
}

const TRICKY = [
  '',
  'a',
  'abc|def|',
  '(?i)\\border\\s+#?\\d{4,}',
  '(?i)order\\s+#?\\d{4,}',
  '^(a+)+$',
  '\\d{1,100}',
  '^.{0,160}$',
  '(?:.?){245}[^a]',
  '(?:(?:a{2,5}b?){3,}|c{0,7}){2}',
  '(?P<year>\\d{4})-(?<month>\\d{2})',
  '(?i:ab){10}(?s).{2}',
  '(?i)(?m)^x$',
  '[]a]{30}',
  '[^]a]{30}',
  '[[:alpha:]]{40}[[:^digit:]x-]{5}',
  '[\\]]{20}',
  '\\Qa{1000}(\\E{3}',
  '\\Qunterminated{9}',
  '\\pL{50}\\p{Greek}{5}\\PN{2}',
  '\\x{1F600}{20}\\x41{3}\\101{4}',
  '😀{30}é{3}',
  'a{2}{3}',
  'a{,5}{x}',
  'a{00000000000000000000000000000040}',
  '(a|b|c|d){10}',
  '()*',
  '(a*)*b+?c??',
  '(?:)+{3}',
  '\\b\\B\\A\\z^$.',
  'x{0}',
  'x{0,}y{1,}z{3,3}',
];

/** Random patterns from RE2's grammar, the same each run. */
function randomPatterns(count: number): string[] {
  let seed = 40;
  let names = 0;
  const pick = (n: number) => {
    seed = (seed * 48271) % 2147483647;
    return seed % n;
  };
  const atoms = ['a', '.', '\\d', '[a-c]', '[^x]', '\\pL', '\\b', '^', '\\Qq{\\E', 'é'];
  const quantifiers = ['', '', '*', '+', '?', '{2}', '{0,3}', '{2,}', '{1,4}?', '*?'];
  const expression = (depth: number): string => {
    const parts = Array.from({ length: 1 + pick(3) }, () => {
      names += 1;
      const open = ['(', '(?:', '(?i:', `(?P<n${names}>`][pick(4)] as string;
      const atom =
        depth > 0 && pick(3) === 0 ? `${open}${expression(depth - 1)})` : (atoms[pick(atoms.length)] as string);
      return `${atom}${quantifiers[pick(quantifiers.length)]}`;
    });
    return depth > 0 && pick(4) === 0 ? `${parts.join('')}|${expression(depth - 1)}` : parts.join('');
  };
  return Array.from({ length: count }, () => expression(3));
}

describe('programSizeBound', () => {
  it.each(TRICKY)('is never below what re2js compiles %s to', (pattern) => {
    const size = compiledSize(pattern);
    if (size !== null) expect(programSizeBound(pattern)).toBeGreaterThanOrEqual(size);
  });

  it('is never below what re2js compiles, for 2,000 generated patterns', () => {
    let compiled = 0;
    for (const pattern of randomPatterns(2000)) {
      const size = compiledSize(pattern);
      if (size === null) continue;
      compiled += 1;
      expect(programSizeBound(pattern), pattern).toBeGreaterThanOrEqual(size);
    }
    expect(compiled).toBeGreaterThan(1000);
  });

  it('counts the issue’s pattern in the hundreds of thousands, without compiling it', () => {
    const pattern = `(?:${'.?'.repeat(200)}){1000}[^a]`;
    expect(pattern).toHaveLength(414);
    const start = performance.now();
    expect(programSizeBound(pattern)).toBeGreaterThan(400_000);
    expect(performance.now() - start).toBeLessThan(50);
  });

  it('stays within four times the compiled size of ordinary patterns', () => {
    for (const pattern of ['(?i)order\\s+#?\\d{4,}', '\\d{1,100}', '^.{0,160}$', '(?:.?){245}[^a]']) {
      expect(programSizeBound(pattern)).toBeLessThanOrEqual(4 * (compiledSize(pattern) as number));
    }
  });
});
