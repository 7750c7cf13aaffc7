/**
 * How long after an SMS sent by email a reply from its number is forwarded to the mail's sender
 * (when `forward_replies` is on): the number's latest outbound message must be that recent.
 */
export const EMAIL_REPLY_WINDOW_DAYS = 7;
