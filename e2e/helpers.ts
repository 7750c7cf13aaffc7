import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { activateDevice } from '../lib/device-sim/activate';
import { DeviceClient } from '../lib/device-sim/client';

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

/** The newest code the dev inbox holds for an address (read as the simulator reads it), polled with a bound. */
export async function codeFor(baseURL: string, to: string, channel: 'sms' | 'email' = 'email'): Promise<string> {
  const client = new DeviceClient({ baseUrl: baseURL });
  let code: string | undefined;
  await expect
    .poll(
      async () => {
        code = await client.latestCode(to, channel);
        return code;
      },
      { timeout: 10_000, message: `a code for ${to} in the dev inbox` },
    )
    .toBeTruthy();
  return code!;
}

/** Signs in from /sign-in with a code from the dev inbox. */
export async function signIn(page: Page, baseURL: string, email: string) {
  await page.goto('/sign-in');
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByRole('button', { name: 'Email me a code' }).click();
  await page.getByRole('textbox', { name: 'Code' }).fill(await codeFor(baseURL, email));
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByTestId('account-email')).toHaveText(email);
}

/** No serious or critical axe violation, no sideways scroll, and a screenshot kept with the results. */
export async function check(page: Page, name: string) {
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    // Named in the failure: the innermost elements that stick out past the viewport.
    const wide = await page.evaluate((limit) => {
      const out = [...document.body.querySelectorAll('*')].filter((el) => el.getBoundingClientRect().right > limit + 1);
      return out
        .filter((el) => !out.some((other) => other !== el && el.contains(other)))
        .slice(0, 5)
        .map((el) => `${el.tagName.toLowerCase()}.${el.className}`.slice(0, 120));
    }, width);
    expect(scrollWidth, `${name} at ${width} px: ${wide.join(' | ')}`).toBeLessThanOrEqual(width);
    const { violations } = await new AxeBuilder({ page }).analyze();
    const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(serious.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    await page.screenshot({ path: test.info().outputPath(`${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}
