import { CODE_LIFETIME_SECONDS } from '@/lib/auth/codes';
import type { Email } from './send';

const minutes = CODE_LIFETIME_SECONDS / 60;

export function bindCodeEmail(to: string, code: string): Email {
  return {
    to,
    code,
    subject: `${code} is your Simgate activation code`,
    text: [
      `Your code to bind this email to your Simgate device is ${code}.`,
      '',
      `It expires in ${minutes} minutes. If you did not ask for it, ignore this email.`,
    ].join('\n'),
  };
}

export function signInCodeEmail(to: string, code: string): Email {
  return {
    to,
    code,
    subject: `${code} is your Simgate sign-in code`,
    text: [
      `Your code to sign in to Simgate is ${code}.`,
      '',
      `It expires in ${minutes} minutes. If you did not ask for it, ignore this email: nobody can sign in without the code.`,
    ].join('\n'),
  };
}

export function addressConfirmationEmail(to: string, link: string, hours: number): Email {
  return {
    to,
    subject: 'Confirm forwarding of SMS to this address',
    text: [
      'A Simgate account asked to forward the text messages its phones receive to this address.',
      '',
      `To allow it, open this link within ${hours} hours:`,
      link,
      '',
      'If you did not expect this, ignore this email: nothing will be forwarded to you.',
    ].join('\n'),
  };
}
