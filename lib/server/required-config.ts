import { trustProxyProblem } from '@/lib/rate-limit/client-ip';

/**
 * Settings an instance cannot run with (or, in server mode, without), checked once at start so
 * that a bad deployment refuses to start with every problem listed, instead of failing request by
 * request.
 */
export function serverConfigProblems(env: NodeJS.ProcessEnv = process.env): string[] {
  const problems: string[] = [];
  const trust = trustProxyProblem(env.TRUST_PROXY);
  if (trust) problems.push(trust);
  if (!env.DATABASE_URL) return problems;
  if (!env.APP_SECRET) problems.push('APP_SECRET is required when DATABASE_URL is set (server mode).');
  else if (env.APP_SECRET.length < 32) problems.push('APP_SECRET must be at least 32 characters.');
  const appUrl = env.APP_URL || env.NEXTAUTH_URL;
  if (!appUrl) {
    problems.push(
      'APP_URL is required in server mode: the public origin (https://sms.example.com) that sign-in links, session cookies, the Host check and the SMSGate app rely on.',
    );
  } else if (!URL.canParse(appUrl) || !/^https?:$/.test(new URL(appUrl).protocol)) {
    problems.push(`APP_URL must be an http(s) URL, got "${appUrl}".`);
  }
  return problems;
}
