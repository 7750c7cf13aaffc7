import fs from 'node:fs';
import type { ClientRequest, IncomingMessage } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { config } from '@/lib/config';
import { log } from '@/lib/log';
import { BlockedAddressError, blockedReason, guardedLookup, hostOf, type NetworkPolicy } from './ssrf';

export const POST_TIMEOUT_MS = 10_000;
export const RESPONSE_BODY_LIMIT = 1024;
/** How much of an answer is read when it may carry a reply (lib/automation/webhook-reply.ts). */
export const REPLY_BODY_LIMIT = 16 * 1024;

export type PostOutcome = {
  /** HTTP status of the answer; null when none came (network error, timeout, refused address). */
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** The first 1 KiB of the answer. */
  responseBody: string | null;
  /** The answer's Content-Type, and its body up to `readLimit` (for replies read from the answer). */
  contentType?: string | null;
  fullBody?: string | null;
  /** The body went past `readLimit` and was cut there. */
  truncated?: boolean;
  retryAfter: string | null;
  /** The guard refused the address: retrying cannot help. */
  refused: boolean;
};

type TrustCache = { file: string; mtimeMs: number; context: tls.SecureContext };
let trustCache: TrustCache | undefined;

/**
 * Node's default roots plus the PEM file named by NODE_EXTRA_CA_CERTS, read when a post is made
 * (Node itself reads that variable only at start), so a private CA can be trusted. Undefined
 * leaves Node's defaults alone. Certificates are always verified. One TLS context per version of
 * the file: building one from every root costs tens of milliseconds of the main thread, too much
 * for each post.
 */
function trustedContext(): tls.SecureContext | undefined {
  const file = config.extraCaCertsFile;
  if (!file) return undefined;
  try {
    const { mtimeMs } = fs.statSync(file);
    if (trustCache?.file !== file || trustCache.mtimeMs !== mtimeMs) {
      const ca = [...tls.rootCertificates, fs.readFileSync(file, 'utf8')];
      trustCache = { file, mtimeMs, context: tls.createSecureContext({ ca }) };
    }
    return trustCache.context;
  } catch (error) {
    log.warn({ err: error, file }, 'NODE_EXTRA_CA_CERTS is unreadable; using the default roots');
    return undefined;
  }
}

/** Postgres text refuses NUL; receivers' answers and error messages may contain anything. */
function storable(text: string): string {
  return text.replaceAll('\u0000', '');
}

function describeError(error: unknown): string {
  const err = error as NodeJS.ErrnoException;
  const message = err?.message ?? String(error);
  return storable(err?.code && !message.includes(err.code) ? `${err.code}: ${message}` : message);
}

/**
 * POSTs one signed webhook: HTTPS only, certificate verified, no redirect followed (a 3xx is
 * answered as is), 10 s for the whole exchange (`timeoutMs`, shorter only in tests), and in server
 * mode only to public addresses. Never throws: every failure comes back as an outcome to record.
 */
export function postWebhook(
  target: string,
  body: string,
  headers: Record<string, string>,
  policy: NetworkPolicy,
  timeoutMs: number = POST_TIMEOUT_MS,
  readLimit: number = RESPONSE_BODY_LIMIT,
): Promise<PostOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failed = (error: unknown): PostOutcome => ({
    statusCode: null,
    latencyMs: elapsed(),
    error: describeError(error),
    responseBody: null,
    retryAfter: null,
    refused: error instanceof BlockedAddressError,
  });

  const checked = checkTarget(target, policy);
  if ('error' in checked) return Promise.resolve(failed(checked.error));
  const { url, host } = checked;

  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(outcome);
    };
    const req = https.request(requestOptions(url, host, body, headers, policy));
    const deadline = setTimeout(() => req.destroy(new Error(`timed out after ${timeoutMs / 1000} s`)), timeoutMs);
    deadline.unref();

    if (!policy.allowPrivateNetworks) refusePrivatePeer(req);

    req.on('error', (error) => finish(failed(error)));
    req.on('response', (res) => readAnswer(res, elapsed(), readLimit, finish));
    req.end(body);
  });
}

/** The target's URL and host, or why it is not posted to: not a URL, not HTTPS, a refused literal address. */
function checkTarget(target: string, policy: NetworkPolicy): { url: URL; host: string } | { error: unknown } {
  let url: URL;
  try {
    url = new URL(target);
  } catch (error) {
    return { error };
  }
  if (url.protocol !== 'https:') return { error: new Error('webhook URLs must use https') };
  const host = hostOf(url);
  const literalReason = !policy.allowPrivateNetworks && net.isIP(host) ? blockedReason(host) : undefined;
  if (literalReason) return { error: new BlockedAddressError(host, literalReason) };
  return { url, host };
}

function requestOptions(
  url: URL,
  host: string,
  body: string,
  headers: Record<string, string>,
  policy: NetworkPolicy,
): https.RequestOptions & Pick<tls.ConnectionOptions, 'secureContext'> {
  // `secureContext` reaches tls.connect, which takes it; Node's https types omit it.
  return {
    method: 'POST',
    host,
    port: url.port || 443,
    path: `${url.pathname}${url.search}`,
    headers: {
      // A format may post another media type (Twilio's form-encoded requests).
      'content-type': 'application/json',
      ...headers,
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': 'Simgate-Webhooks/1.0',
    },
    agent: false,
    secureContext: trustedContext(),
    rejectUnauthorized: true,
    ...(policy.allowPrivateNetworks ? {} : { lookup: guardedLookup }),
  };
}

/** Belt and braces: the peer actually connected to must be public too. */
function refusePrivatePeer(req: ClientRequest): void {
  req.on('socket', (socket) => {
    socket.once('connect', () => {
      const address = socket.remoteAddress ?? '';
      const reason = blockedReason(address);
      if (reason) req.destroy(new BlockedAddressError(address, reason));
    });
  });
}

/** Reads the answer up to `readLimit` and finishes with it; the rest of a longer answer is not read. */
function readAnswer(
  res: IncomingMessage,
  latencyMs: number,
  readLimit: number,
  finish: (outcome: PostOutcome) => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const done = () => {
    const retryAfter = res.headers['retry-after'];
    const read = Buffer.concat(chunks);
    finish({
      statusCode: res.statusCode ?? null,
      latencyMs,
      error: null,
      responseBody: storable(read.subarray(0, RESPONSE_BODY_LIMIT).toString('utf8')),
      ...(readLimit > RESPONSE_BODY_LIMIT
        ? {
            contentType: res.headers['content-type'] ?? null,
            fullBody: read.subarray(0, readLimit).toString('utf8'),
            truncated: size > readLimit,
          }
        : {}),
      retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
      refused: false,
    });
  };
  res.on('data', (chunk: Buffer) => {
    if (size > readLimit) return;
    chunks.push(chunk);
    size += chunk.byteLength;
    // The rest of the answer is of no interest: stop reading.
    if (size > readLimit) {
      done();
      res.destroy();
    }
  });
  res.on('end', done);
  res.on('close', done);
  res.on('error', done);
}
