import type { Email } from './send';

/** A code's email says how long the code lives: `lifetimeSeconds`, as the code's issuer set it. */
export function bindCodeEmail(to: string, code: string, lifetimeSeconds: number): Email {
  const minutes = lifetimeSeconds / 60;
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

export function signInCodeEmail(to: string, code: string, lifetimeSeconds: number): Email {
  const minutes = lifetimeSeconds / 60;
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

export function invitationEmail(to: string, link: string, accountEmail: string, role: string, days: number): Email {
  return {
    to,
    subject: `You are invited to the Simgate account ${accountEmail}`,
    text: [
      `You are invited to join the Simgate account ${accountEmail} as ${role === 'admin' || role === 'owner' ? 'an' : 'a'} ${role}.`,
      '',
      `To join, open this link within ${days} days and sign in with the code we email you:`,
      link,
      '',
      'If you did not expect this, ignore this email: nobody joins without the link and the code.',
    ].join('\n'),
  };
}
