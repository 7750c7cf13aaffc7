import { type ChildProcess, spawn } from 'node:child_process';
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { activateDevice } from '../tools/device-sim/activate';
import { DeviceClient } from '../tools/device-sim/client';

let counter = 0;

/** A number no other spec of this run uses (+1 415 555 2xxx). */
export function uniqueNumber(): string {
  counter += 1;
  return `+14155552${String((Date.now() + counter) % 1000).padStart(3, '0')}`;
}

/** Activates a phone as the device simulator does and returns its credentials. */
export async function activatePhone(baseURL: string, email: string, phone = uniqueNumber()) {
  const activation = await activateDevice(new DeviceClient({ baseUrl: baseURL }), { phone, email, apiKeyName: 'e2e' });
  return { ...activation, apiKey: activation.apiKey!, phone };
}

/**
 * The newest code the dev inbox holds for an address (read as the simulator reads it), polled with a
 * bound. `not`: a code already there before (activation's email code), to wait for the next one.
 */
export async function codeFor(
  baseURL: string,
  to: string,
  channel: 'sms' | 'email' = 'email',
  not?: string,
): Promise<string> {
  const client = new DeviceClient({ baseUrl: baseURL });
  let code: string | undefined;
  await expect
    .poll(
      async () => {
        code = await client.latestCode(to, channel);
        return code !== undefined && code !== not;
      },
      { timeout: 10_000, message: `a new code for ${to} in the dev inbox` },
    )
    .toBe(true);
  return code!;
}

/** Signs in through the sign-in form with the code the dev inbox received. */
export async function signIn(page: Page, baseURL: string, email: string) {
  if (!new URL(page.url(), baseURL).pathname.startsWith('/sign-in')) await page.goto('/sign-in');
  // Activation emailed a code too: the sign-in code is the one after it.
  const earlier = await new DeviceClient({ baseUrl: baseURL }).latestCode(email, 'email');
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByRole('button', { name: 'Email me a code' }).click();
  await page.getByRole('textbox', { name: 'Code' }).fill(await codeFor(baseURL, email, 'email', earlier));
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByTestId('account-email')).toHaveText(email);
}

/**
 * Axe's serious and critical violations once transitions have ended (endless ones, the loading
 * skeletons' pulse, excepted): a toast fading in or out is half transparent. A toast can still start
 * between that wait and axe's pass, so a page with violations is measured again, up to three times:
 * a real violation stays, a passing fade does not.
 */
async function seriousViolations(page: Page) {
  let serious: Awaited<ReturnType<AxeBuilder['analyze']>>['violations'] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    await page.waitForFunction(() =>
      document
        .getAnimations()
        .every(
          (a) => a.playState !== 'running' || a.effect?.getComputedTiming().iterations === Number.POSITIVE_INFINITY,
        ),
    );
    const { violations } = await new AxeBuilder({ page }).analyze();
    serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    if (serious.length === 0) break;
  }
  return serious;
}

/**
 * At 1280×800 and 390×844: no sideways scroll, no serious or critical axe violation, and a full-page
 * screenshot kept with the test's results. Leaves the page at 1280×800.
 */
export async function checkPage(page: Page, name: string) {
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(scrollWidth, `${name} at ${width} px scrolls sideways`).toBeLessThanOrEqual(width);
    const serious = await seriousViolations(page);
    expect(
      serious.map((v) => `${name} at ${width} px: ${v.id}: ${v.nodes.map((node) => node.target.join(' ')).join(', ')}`),
    ).toEqual([]);
    await page.screenshot({ path: test.info().outputPath(`${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** Follows a link of the dashboard's navigation, opening the phone-width menu first when it is folded. */
export async function navigate(page: Page, label: string) {
  // A pointer left resting on a toast keeps it open (sonner pauses on hover): move it off first.
  await page.mouse.move(0, 0);
  const nav = page.getByRole('navigation', { name: 'Dashboard' });
  const menu = nav.getByRole('button', { name: /^Menu/ });
  if ((await menu.isVisible()) && (await menu.getAttribute('aria-expanded')) === 'false') await menu.click();
  await nav.getByRole('link', { name: label, exact: true }).click();
}

/** The device simulator's command line (`npm run device -- …`), as a child process. */
export function deviceCli(args: string[]): ChildProcess {
  return spawn(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'scripts/device.ts', ...args], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Waits for a child process to end: its exit code and everything it printed. */
export async function exitOf(child: ChildProcess): Promise<{ code: number | null; output: string }> {
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, output };
}

/** The device simulator's command line, its output gathered from the start (for a run that is read while it goes on). */
export function watchedDeviceCli(args: string[]): { child: ChildProcess; output: () => string } {
  const child = deviceCli(args);
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  return { child, output: () => output };
}

/** A child process's exit code, once it has ended. */
export async function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  return new Promise((resolve) => child.once('exit', resolve));
}
