/**
 * SMS segment counting. GSM 03.38: a message fits one segment up to 160 septets, and a
 * concatenated message carries 153 per segment (the user-data header takes the rest). Characters
 * of the extension table cost two septets (escape + char). Anything outside both tables forces
 * UCS-2: 70 UTF-16 code units in one segment, 67 per segment when concatenated.
 */
export type Encoding = 'GSM-7' | 'UCS-2';

const GSM_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXTENSION = '\f^{}\\[~]|€';

const BASIC = new Set(GSM_BASIC);
const EXTENSION = new Set(GSM_EXTENSION);

const LIMITS = {
  'GSM-7': { single: 160, multi: 153 },
  'UCS-2': { single: 70, multi: 67 },
} as const;

/** Septets the text takes in GSM-7, or null when a character is outside the GSM alphabet. */
function gsmSeptets(text: string): number | null {
  let septets = 0;
  for (const char of text) {
    if (BASIC.has(char)) septets += 1;
    else if (EXTENSION.has(char)) septets += 2;
    else return null;
  }
  return septets;
}

export function countSegments(text: string): { encoding: Encoding; segments: number; units: number } {
  const septets = gsmSeptets(text);
  const encoding: Encoding = septets === null ? 'UCS-2' : 'GSM-7';
  // UCS-2 counts UTF-16 code units: a character outside the BMP (most emoji) takes two.
  const units = septets ?? text.length;
  const { single, multi } = LIMITS[encoding];
  const segments = units <= single ? 1 : Math.ceil(units / multi);
  return { encoding, segments, units };
}
