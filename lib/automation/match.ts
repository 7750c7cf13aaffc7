import { RE2JS } from 're2js';
import type { StoredRuleAction } from '@/db/schema';

/** Patterns are capped so a rule stays readable and its compiled program small. */
export const MAX_PATTERN_LENGTH = 500;

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
 * Compiles a rule's pattern with RE2's linear-time engine (re2js): matching costs time in
 * proportion to the text whatever the pattern, and what needs backtracking (backreferences,
 * lookaround) does not compile. Throws the engine's message for a pattern it refuses.
 */
export function compilePattern(pattern: string): RE2JS {
  return RE2JS.compile(pattern);
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

const compiled = new Map<string, RE2JS>();

/** Whether the pattern occurs in the text (compiled once per process and pattern). */
export function patternMatches(pattern: string, text: string): boolean {
  let re = compiled.get(pattern);
  if (!re) {
    re = compilePattern(pattern);
    if (compiled.size >= 1000) compiled.clear();
    compiled.set(pattern, re);
  }
  return re.matcher(text).find();
}

export type RuleCondition = {
  keyword: string | null;
  pattern: string | null;
  fromPrefix: string | null;
  scopePhoneIds: string[];
  scopeGroupIds: number[];
};

export type InboundFacts = { phoneId: string; groupId: number; from: string; text: string };

/** Whether a rule's condition holds for an inbound message: scope, sender prefix, keyword or pattern. */
export function ruleMatches(rule: RuleCondition, inbound: InboundFacts): boolean {
  const scoped = rule.scopePhoneIds.length > 0 || rule.scopeGroupIds.length > 0;
  if (scoped && !rule.scopePhoneIds.includes(inbound.phoneId) && !rule.scopeGroupIds.includes(inbound.groupId)) {
    return false;
  }
  if (rule.fromPrefix !== null && !inbound.from.startsWith(rule.fromPrefix)) return false;
  if (rule.keyword !== null && firstWord(inbound.text) !== foldWord(rule.keyword)) return false;
  if (rule.pattern !== null && !patternMatches(rule.pattern, inbound.text)) return false;
  return true;
}

/** The variables a reply's content may use. */
export const REPLY_VARIABLES = ['from', 'text', 'phone'] as const;

/** Whether an action sends an SMS (and so costs a credit and counts against AUTO_REPLY_LIMIT). */
export function sendsSms(
  action: StoredRuleAction,
): action is Extract<StoredRuleAction, { type: 'reply' | 'forward_sms' }> {
  return action.type === 'reply' || action.type === 'forward_sms';
}
