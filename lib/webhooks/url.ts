import { z } from '@/lib/zod';

const MAX_URL_LENGTH = 2048;

/** An absolute https URL without credentials, normalised (`new URL(...).href`). */
export const webhookUrl = z
  .string()
  .trim()
  .max(MAX_URL_LENGTH)
  .transform((raw, ctx) => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not a valid URL' });
      return z.NEVER;
    }
    if (url.protocol !== 'https:') {
      ctx.addIssue({ code: 'custom', message: 'must be an https:// URL' });
      return z.NEVER;
    }
    if (url.username || url.password) {
      ctx.addIssue({ code: 'custom', message: 'must not contain credentials (user:password@)' });
      return z.NEVER;
    }
    if (!url.hostname) {
      ctx.addIssue({ code: 'custom', message: 'must name a host' });
      return z.NEVER;
    }
    return url.href;
  })
  .openapi({
    type: 'string',
    format: 'uri',
    example: 'https://example.com/hooks/simgate',
    description:
      'HTTPS URL that receives the events; no credentials in it. In server mode it must resolve to public addresses only.',
  });
