/**
 * Smart encoding: characters that only look like GSM-7 ones, replaced by the GSM-7 text they look
 * like, so that a text typed in a word processor or on a phone keyboard ("Don’t miss it — 20% off…")
 * stays GSM-7 (160 characters a segment) instead of turning the whole message into UCS-2 (70).
 * Applied to a send with `smart_encoding: true`, or by default when the account's setting
 * `smart_encoding` is on, before segments are counted (lib/messages/segments.ts); the message keeps
 * the replaced text, which is what the phone sends. docs/api.md lists the table.
 *
 * Each entry maps a character to its replacement (empty: removed). Only characters outside the GSM
 * alphabet are listed, and every replacement is inside it.
 */
export const SMART_ENCODING_TABLE: Readonly<Record<string, string>> = {
  // Quotation marks and apostrophes
  '\u2018': "'", // ‘ left single quotation mark
  '\u2019': "'", // ’ right single quotation mark (the typographic apostrophe)
  '\u201A': "'", // ‚ single low-9 quotation mark
  '\u201B': "'", // ‛ single high-reversed-9 quotation mark
  '\u2032': "'", // ′ prime
  '\u02BC': "'", // ʼ modifier letter apostrophe
  '\u00B4': "'", // ´ acute accent
  '\u0060': "'", // ` grave accent
  '\u201C': '"', // “ left double quotation mark
  '\u201D': '"', // ” right double quotation mark
  '\u201E': '"', // „ double low-9 quotation mark
  '\u201F': '"', // ‟ double high-reversed-9 quotation mark
  '\u2033': '"', // ″ double prime
  '\u00AB': '"', // « left-pointing double angle quotation mark
  '\u00BB': '"', // » right-pointing double angle quotation mark
  '\u2039': "'", // ‹ single left-pointing angle quotation mark
  '\u203A': "'", // › single right-pointing angle quotation mark
  // Dashes and hyphens
  '\u2010': '-', // ‐ hyphen
  '\u2011': '-', // ‑ non-breaking hyphen
  '\u2012': '-', // ‒ figure dash
  '\u2013': '-', // – en dash
  '\u2014': '-', // — em dash
  '\u2015': '-', // ― horizontal bar
  '\u2212': '-', // − minus sign
  '\u00AD': '', // soft hyphen (invisible)
  // Spaces
  '\u00A0': ' ', // no-break space
  '\u2000': ' ', // en quad
  '\u2001': ' ', // em quad
  '\u2002': ' ', // en space
  '\u2003': ' ', // em space
  '\u2004': ' ', // three-per-em space
  '\u2005': ' ', // four-per-em space
  '\u2006': ' ', // six-per-em space
  '\u2007': ' ', // figure space
  '\u2008': ' ', // punctuation space
  '\u2009': ' ', // thin space
  '\u200A': ' ', // hair space
  '\u202F': ' ', // narrow no-break space
  '\u205F': ' ', // medium mathematical space
  '\u3000': ' ', // ideographic space
  '\t': ' ', // tab (not in the GSM alphabet)
  // Invisible characters
  '\u200B': '', // zero-width space
  '\u200C': '', // zero-width non-joiner
  '\u200D': '', // zero-width joiner
  '\u2060': '', // word joiner
  '\uFEFF': '', // zero-width no-break space (byte-order mark)
  // Punctuation and symbols
  '\u2026': '...', // … horizontal ellipsis
  '\u2022': '-', // • bullet
  '\u00B7': '.', // · middle dot
  '\u2044': '/', // ⁄ fraction slash
  '\u02C6': '^', // ˆ modifier letter circumflex
  '\u02DC': '~', // ˜ small tilde
  '\u2028': '\n', // line separator
  '\u2029': '\n', // paragraph separator
  '\u00A9': '(c)', // ©
  '\u00AE': '(r)', // ®
  '\u2122': 'TM', // ™
  // Letters that look like GSM-7 ones (accented capitals the GSM alphabet lacks, ligatures)
  '\u00C0': 'A', // À
  '\u00C1': 'A', // Á
  '\u00C2': 'A', // Â
  '\u00C3': 'A', // Ã
  '\u00C8': 'E', // È
  '\u00CA': 'E', // Ê
  '\u00CB': 'E', // Ë
  '\u00CC': 'I', // Ì
  '\u00CD': 'I', // Í
  '\u00CE': 'I', // Î
  '\u00CF': 'I', // Ï
  '\u00D2': 'O', // Ò
  '\u00D3': 'O', // Ó
  '\u00D4': 'O', // Ô
  '\u00D5': 'O', // Õ
  '\u00D9': 'U', // Ù
  '\u00DA': 'U', // Ú
  '\u00DB': 'U', // Û
  '\u00DD': 'Y', // Ý
  '\u00E1': 'a', // á
  '\u00E2': 'a', // â
  '\u00E3': 'a', // ã
  '\u00E7': 'c', // ç (the GSM alphabet has only the capital Ç)
  '\u00EA': 'e', // ê
  '\u00EB': 'e', // ë
  '\u00ED': 'i', // í
  '\u00EE': 'i', // î
  '\u00EF': 'i', // ï
  '\u00F3': 'o', // ó
  '\u00F4': 'o', // ô
  '\u00F5': 'o', // õ
  '\u00FA': 'u', // ú
  '\u00FB': 'u', // û
  '\u00FD': 'y', // ý
  '\u00FF': 'y', // ÿ
  '\u0152': 'OE', // Œ
  '\u0153': 'oe', // œ
  '\uFB01': 'fi', // ﬁ
  '\uFB02': 'fl', // ﬂ
};

const PATTERN = new RegExp(
  `[${Object.keys(SMART_ENCODING_TABLE)
    .map((char) => `\\u{${(char.codePointAt(0) as number).toString(16)}}`)
    .join('')}]`,
  'gu',
);

/** Whether the text holds a character the table replaces. */
export function hasLookalikes(text: string): boolean {
  PATTERN.lastIndex = 0;
  return PATTERN.test(text);
}

/** The text with every character of the table replaced; other characters (emoji, Cyrillic, …) stay. */
export function smartEncode(text: string): string {
  return text.replace(PATTERN, (char) => SMART_ENCODING_TABLE[char] ?? char);
}
