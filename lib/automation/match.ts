import { setImmediate as nextTurn } from 'node:timers/promises';
import { LRUCache } from 'lru-cache';
import { RE2JS } from 're2js';
import type { StoredRuleAction } from '@/db/schema';
import { log } from '@/lib/log';
import { MAX_CONTENT_LENGTH } from '@/lib/messages/limits';
import { programSizeBound } from './program-size';

/** Patterns are capped so a rule stays readable. */
export const MAX_PATTERN_LENGTH = 500;

/**
 * The most instructions a pattern's compiled program may hold. RE2 matches in time proportional
 * to the text's length times the program's size, so this bounds the time one pattern takes: about
 * 50 ms for the largest program against MAX_MATCHED_TEXT characters (test/api/automation-patterns.test.ts
 * measures it). Ordinary patterns hold 10 to 100; `\d{1,100}` holds about 200, `.{0,160}` about 320.
 */
export const MAX_PATTERN_INSTRUCTIONS = 500;

/** The characters of a text a pattern is searched in: the longest SMS content the API takes. */
export const MAX_MATCHED_TEXT = MAX_CONTENT_LENGTH;

/**
 * Beyond its program's size, a pattern is refused from its text alone (programSizeBound) and
 * never compiled: re2js builds the whole program before it can be measured, and `(?:.?){1000}`
 * inside a 414-character pattern builds 400,000 instructions, some 80 MB, in a third of a second.
 */
const COMPILE_BOUND = 4 * MAX_PATTERN_INSTRUCTIONS;

const TOO_LARGE = `too large: it compiles to more than ${MAX_PATTERN_INSTRUCTIONS} instructions (counted repetitions such as {n,m} multiply its size)`;

/**
 * A word compared without case or accents: "Café", "CAFE" and "cafe" are one keyword. Leading and
 * trailing punctuation goes too ("JOIN!" is JOIN).
 */
export function foldWord(word: string): string {
  return word
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/^\p{P}+|\p{P}+$/gu, '');
}

/** The first word of a text, folded: what a keyword rule compares. */
export function firstWord(text: string): string {
  return foldWord(text.trim().split(/\s+/u, 1)[0] ?? '');
}

/**
 * Compiles a rule's pattern with RE2's linear-time engine (re2js): what needs backtracking
 * (backreferences, lookaround) does not compile, and a program over MAX_PATTERN_INSTRUCTIONS is
 * refused. Throws the reason for a pattern it refuses.
 */
export function compilePattern(pattern: string): RE2JS {
  if (programSizeBound(pattern) > COMPILE_BOUND) throw new Error(TOO_LARGE);
  const re = RE2JS.compile(pattern);
  if (re.programSize() > MAX_PATTERN_INSTRUCTIONS) throw new Error(TOO_LARGE);
  return re;
}

/** The refusal of a pattern, or null when it compiles. */
export function patternProblem(pattern: string): string | null {
  try {
    compilePattern(pattern);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * Compiled patterns by their text, bounded by the instructions they hold (some 180 bytes each in
 * re2js, whatever the classes): about 9 MB at most. A pattern that does not compile any more (stored before a limit it now fails)
 * is remembered as refused, so it is reported once and never compiled again while it stays here.
 */
const compiled = new LRUCache<string, RE2JS | 'refused'>({
  maxSize: 50_000,
  sizeCalculation: (entry) => (entry === 'refused' ? 1 : entry.programSize()),
});

/**
 * Whether the pattern occurs in the first MAX_MATCHED_TEXT characters of the text. A stored
 * pattern the engine now refuses matches nothing, with a warning the first time.
 */
export function patternMatches(pattern: string, text: string): boolean {
  let re = compiled.get(pattern);
  if (!re) {
    try {
      re = compilePattern(pattern);
    } catch (error) {
      re = 'refused';
      log.warn({ pattern, reason: (error as Error).message }, 'inbound rule pattern refused: it matches nothing');
    }
    compiled.set(pattern, re);
  }
  if (re === 'refused') return false;
  // matcher().find() runs the NFA or the bounded backtracker, whose memory goes with the match;
  // RE2JS.test() would grow a lazy DFA of up to 8 MB kept with each cached pattern.
  return re.matcher(text.slice(0, MAX_MATCHED_TEXT)).find();
}

export type RuleCondition = {
  keyword: string | null;
  pattern: string | null;
  fromPrefix: string | null;
  scopePhoneIds: string[];
  scopeGroupIds: number[];
};

export type InboundFacts = { phoneId: string; groupId: number; from: string; text: string };

/** The time an inbound message's patterns may take together, compiling included. */
export const MATCH_BUDGET_MS = 250;

/** The time one inbound message's patterns have taken, against MATCH_BUDGET_MS. */
export type MatchBudget = { spentMs: number; reported: boolean };

export function matchBudget(): MatchBudget {
  return { spentMs: 0, reported: false };
}

/**
 * Whether a rule's condition holds for an inbound message: scope, sender prefix, keyword or
 * pattern. A pattern is tried in a turn of the event loop of its own, so that a slow one holds
 * other requests for one match at most (bounded by MAX_PATTERN_INSTRUCTIONS); once the message's
 * patterns have taken MATCH_BUDGET_MS, the rest match nothing, with a warning.
 */
export async function ruleMatches(rule: RuleCondition, inbound: InboundFacts, budget: MatchBudget): Promise<boolean> {
  const scoped = rule.scopePhoneIds.length > 0 || rule.scopeGroupIds.length > 0;
  if (scoped && !rule.scopePhoneIds.includes(inbound.phoneId) && !rule.scopeGroupIds.includes(inbound.groupId)) {
    return false;
  }
  if (rule.fromPrefix !== null && !inbound.from.startsWith(rule.fromPrefix)) return false;
  if (rule.keyword !== null && firstWord(inbound.text) !== foldWord(rule.keyword)) return false;
  if (rule.pattern === null) return true;
  if (budget.spentMs >= MATCH_BUDGET_MS) {
    if (!budget.reported)
      log.warn({ budgetMs: MATCH_BUDGET_MS }, 'inbound rules: pattern time spent, later patterns skipped');
    budget.reported = true;
    return false;
  }
  await nextTurn();
  const start = performance.now();
  try {
    return patternMatches(rule.pattern, inbound.text);
  } finally {
    budget.spentMs += performance.now() - start;
  }
}

/** The variables a reply's content may use. */
export const REPLY_VARIABLES = ['from', 'text', 'phone'] as const;

/** Whether an action sends an SMS (and so costs a credit and counts against AUTO_REPLY_LIMIT). */
export function sendsSms(
  action: StoredRuleAction,
): action is Extract<StoredRuleAction, { type: 'reply' | 'forward_sms' }> {
  return action.type === 'reply' || action.type === 'forward_sms';
}
