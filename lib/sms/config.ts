import { config } from '@/lib/config';

/**
 * Settings of the outbound SMS used for verification codes. Unset, codes go to the dev inbox.
 * - `VERIFICATION_SENDER_PHONE`: E.164 number of a phone of an operator account; codes are sent
 *   through it as ordinary gateway messages (charged to that account's group). The phone must be
 *   bound to an activated device.
 * - `VERIFICATION_SENDER_EMAIL`: the operator account's email, required whenever
 *   VERIFICATION_SENDER_PHONE is set (any account may add any number as a phone, so the number
 *   alone names no one). Without it every verification SMS answers 503 and logs an error.
 */
export const smsConfig = {
  get senderPhone() {
    return config.verificationSenderPhone;
  },
  get senderEmail() {
    return config.verificationSenderEmail;
  },
};
