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
