/**
 * Settings of the outbound SMS used for verification codes. Unset, codes go to the dev inbox.
 * - `VERIFICATION_SENDER_PHONE`: E.164 number of a phone of an operator account; codes are sent
 *   through it as ordinary gateway messages (charged to that account's group).
 * - `VERIFICATION_SENDER_EMAIL`: the operator account's email, needed only when several accounts
 *   have a phone with that number.
 */
export const smsConfig = {
  get senderPhone() {
    return process.env.VERIFICATION_SENDER_PHONE?.trim() || undefined;
  },
  get senderEmail() {
    return process.env.VERIFICATION_SENDER_EMAIL?.trim().toLowerCase() || undefined;
  },
};
