import { sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { DomainError, validationError } from '@/lib/errors';
import { optedOutAmong } from '@/lib/opt-outs/check';
import { countryOf } from '@/lib/phone-number';
import { effectiveSending } from '@/lib/settings/settings';
import { chooseGroupPhones, simFitsSql } from './assign';
import { MAX_CONTENT_LENGTH, MAX_RENDERED_TOTAL } from './limits';
import { countSegments, type Encoding } from './segments';
import { findSenderPhone } from './sender-phone';
import { smartEncodingOn } from './smart-content';
import { smartEncode } from './smart-encoding';
import { parseTemplate, renderTemplate, type TemplateVars } from './template';

export type Recipient = string | { to: string; vars?: TemplateVars };

export type OutboundPlanInput = {
  from?: string;
  fromGroup?: number;
  requireOnline?: boolean;
  sim?: number;
  recipients: Recipient[];
  content: string;
  /**
   * `content` and every recipient are in the SMSGate app's encrypted format (lib/messages/encrypted.ts):
   * sent as they are from one phone paired with the app, with no template, opt-out or country check.
   */
  encrypted?: boolean;
  /** Replace GSM-7 look-alikes in each rendered text (lib/messages/smart-encoding.ts); absent: the account's default. */
  smartEncoding?: boolean;
};

/** One message that will go out: its rendered text and the phone chosen for it. */
export type PlannedMessage = {
  index: number;
  to: string;
  content: string;
  segments: number;
  encoding: Encoding;
  phone: { id: string; phone: string };
};

export type RejectedRecipient = {
  index: number;
  to: string;
  code: 'VALIDATION_ERROR' | 'RECIPIENT_OPTED_OUT' | 'RECIPIENT_COUNTRY_NOT_ALLOWED' | 'DUPLICATE_REQUEST';
  detail: string;
  /** For VALIDATION_ERROR: the field, e.g. `recipients.3.vars.name`. */
  field?: string;
};

export type OutboundPlan = {
  /** The group charged: the sender's, or `from_group`. */
  groupId: number;
  /** The one sending phone of a send `from` a phone; null through a group. */
  senderPhoneId: string | null;
  planned: PlannedMessage[];
  rejected: RejectedRecipient[];
};

/**
 * What a single or bulk send would do, before anything is written: the sender (403), the SIM
 * slot (400), each recipient's rendered text (a missing variable rejects that recipient), the
 * recipients who opted out (rejected, never charged), and the phone of the group each one goes
 * to. Repeated recipients are planned once (the first one counts). `lock` takes the phones'
 * FOR KEY SHARE locks for a transaction that charges next.
 */
export async function planOutbound(
  executor: Executor,
  accountId: string,
  input: OutboundPlanInput,
  options: { lock?: boolean } = {},
): Promise<OutboundPlan> {
  const sender = await checkedSender(executor, accountId, input, options);
  if (input.encrypted) {
    if (!sender) throw encryptedNeedsPhone();
    await checkAppPhone(executor, accountId, sender);
    return {
      groupId: sender.groupId,
      senderPhoneId: sender.id,
      planned: opaqueRecipients(input, sender),
      rejected: [],
    };
  }
  const smart = await smartEncodingOn(
    executor,
    accountId,
    [
      input.content,
      ...input.recipients.flatMap((r) => (typeof r === 'string' ? [] : Object.values(r.vars ?? {}).map(String))),
    ],
    input.smartEncoding,
  );
  const { rendered, rejected } = renderRecipients(input.content, input.recipients, smart);
  const groupId = sender ? sender.groupId : (input.fromGroup as number);
  const sendable = await screenRecipients(executor, accountId, groupId, rendered, rejected);
  rejected.sort((a, b) => a.index - b.index);
  if (sender) {
    const phone = { id: sender.id, phone: sender.phone };
    return {
      groupId: sender.groupId,
      senderPhoneId: sender.id,
      planned: sendable.map((m) => ({ ...m, phone })),
      rejected,
    };
  }
  const planned = await assignGroupPhones(executor, accountId, groupId, sendable, input, options);
  return { groupId, senderPhoneId: null, planned, rejected };
}

/** The sending phone of a send `from` a phone (403 if not the account's), its SIM slot checked; undefined through a group. */
async function checkedSender(
  executor: Executor,
  accountId: string,
  input: OutboundPlanInput,
  options: { lock?: boolean },
): Promise<Awaited<ReturnType<typeof findSenderPhone>> | undefined> {
  if ((input.from === undefined) === (input.fromGroup === undefined)) {
    throw validationError('from', 'give exactly one of from and from_group');
  }
  const sender = input.from === undefined ? undefined : await findSenderPhone(executor, accountId, input.from, options);
  if (sender && input.sim !== undefined && !(await phoneHasSim(executor, accountId, sender.id, input.sim))) {
    throw validationError('sim', `phone ${sender.phone} has reported no SIM in slot ${input.sim}`);
  }
  return sender;
}

/** The rendered recipients that may be sent to; those who opted out or are outside the allowed countries go to `rejected`. */
async function screenRecipients(
  executor: Executor,
  accountId: string,
  groupId: number,
  rendered: Array<Omit<PlannedMessage, 'phone'>>,
  rejected: RejectedRecipient[],
): Promise<Array<Omit<PlannedMessage, 'phone'>>> {
  const optedOut = await optedOutAmong(
    executor,
    accountId,
    rendered.map((message) => message.to),
  );
  const { allowed_countries: allowed } = await effectiveSending(executor, accountId, groupId);
  return rendered.filter((message) => {
    if (optedOut.has(message.to)) {
      rejected.push({
        index: message.index,
        to: message.to,
        code: 'RECIPIENT_OPTED_OUT',
        detail: `${message.to} has opted out`,
      });
      return false;
    }
    const country = countryOf(message.to);
    if (allowed && !(country && allowed.includes(country))) {
      rejected.push({
        index: message.index,
        to: message.to,
        code: 'RECIPIENT_COUNTRY_NOT_ALLOWED',
        detail: `${country ?? 'its country'} is not among the allowed countries`,
      });
      return false;
    }
    return true;
  });
}

/** Each sendable recipient with the phone of group `groupId` chosen for it. */
async function assignGroupPhones(
  executor: Executor,
  accountId: string,
  groupId: number,
  sendable: Array<Omit<PlannedMessage, 'phone'>>,
  input: OutboundPlanInput,
  options: { lock?: boolean },
): Promise<PlannedMessage[]> {
  const chosen =
    sendable.length === 0
      ? new Map()
      : await chooseGroupPhones(executor, accountId, {
          groupId,
          recipients: sendable.map((message) => message.to),
          sim: input.sim,
          requireOnline: input.requireOnline,
          lock: options.lock,
        });
  return sendable.map((message) => {
    const phone = chosen.get(message.to);
    if (!phone) throw new Error('planOutbound: recipient without a phone');
    return { ...message, phone: { id: phone.id, phone: phone.phone } };
  });
}

/**
 * Each distinct recipient's text, or why it has none (a missing variable, a text over
 * MAX_CONTENT_LENGTH). A text stops rendering once past that length, and the texts together may
 * hold at most MAX_RENDERED_TOTAL characters (413 naming `recipients`): a request's rendering
 * work is bounded, whatever its vars.
 */
function renderRecipients(
  content: string,
  recipients: Recipient[],
  smart: boolean,
): { rendered: Array<Omit<PlannedMessage, 'phone'>>; rejected: RejectedRecipient[] } {
  const template = parseTemplate(content);
  const rejected: RejectedRecipient[] = [];
  const rendered: Array<Omit<PlannedMessage, 'phone'>> = [];
  const seen = new Set<string>();
  let total = 0;
  recipients.forEach((recipient, index) => {
    const { to, vars } = typeof recipient === 'string' ? { to: recipient, vars: undefined } : recipient;
    if (seen.has(to)) return;
    seen.add(to);
    const rendering = renderTemplate(template, vars, MAX_CONTENT_LENGTH);
    if (rendering.status === 'missing') {
      const { missing } = rendering;
      const field = `recipients.${index}.vars.${missing[0]}`;
      rejected.push({
        index,
        to,
        code: 'VALIDATION_ERROR',
        field,
        detail: `missing template variable ${missing.join(', ')}`,
      });
      return;
    }
    if (rendering.status === 'too_long') {
      const field = `recipients.${index}`;
      rejected.push({
        index,
        to,
        code: 'VALIDATION_ERROR',
        field,
        detail: `rendered text is over ${MAX_CONTENT_LENGTH} characters`,
      });
      return;
    }
    total += rendering.text.length;
    if (total > MAX_RENDERED_TOTAL) throw renderedTotalTooLarge();
    const text = smart ? smartEncode(rendering.text) : rendering.text;
    if (text.length > MAX_CONTENT_LENGTH) {
      rejected.push({
        index,
        to,
        code: 'VALIDATION_ERROR',
        field: `recipients.${index}`,
        detail: `text is over ${MAX_CONTENT_LENGTH} characters once smart encoding replaced look-alikes`,
      });
      return;
    }
    rendered.push({ index, to, content: text, ...countSegments(text) });
  });
  return { rendered, rejected };
}

/**
 * Encrypted recipients, one message each, as they came (repeats of one ciphertext once): Simgate
 * cannot read the numbers, so cannot render, screen or count segments (each is recorded as one
 * GSM-7 segment). Each still costs one credit.
 */
function opaqueRecipients(input: OutboundPlanInput, sender: { id: string; phone: string }): PlannedMessage[] {
  const seen = new Set<string>();
  const planned: PlannedMessage[] = [];
  input.recipients.forEach((recipient, index) => {
    const to = typeof recipient === 'string' ? recipient : recipient.to;
    if (seen.has(to)) return;
    seen.add(to);
    planned.push({
      index,
      to,
      content: input.content,
      segments: 1,
      encoding: 'GSM-7',
      phone: { id: sender.id, phone: sender.phone },
    });
  });
  return planned;
}

function encryptedNeedsPhone(): DomainError {
  return validationError(
    'from_group',
    'an encrypted message goes from one phone paired with the SMSGate app, which holds the passphrase: give `from`, not `from_group`',
  );
}

/** Only the SMSGate app can decrypt what it sends: a simulator phone is refused (400 naming `encrypted`). */
async function checkAppPhone(
  executor: Executor,
  accountId: string,
  sender: { id: string; phone: string },
): Promise<void> {
  const [row] = await queryRows<{ kind: string | null }>(
    executor,
    sql`select d.kind from phones p left join devices d on d.id = p.device_id
        where p.account_id = ${accountId}::uuid and p.id = ${sender.id}::uuid`,
  );
  if (row?.kind !== 'app') {
    throw new DomainError(
      'VALIDATION_ERROR',
      `Phone ${sender.phone} is not paired with the SMSGate app, so it cannot decrypt an encrypted message.`,
      {
        errors: [
          {
            path: 'encrypted',
            message: `phone ${sender.phone} is not an SMSGate app phone: encrypted messages go only from a phone paired with the SMSGate app whose passphrase they were encrypted with`,
          },
        ],
      },
    );
  }
}

function renderedTotalTooLarge(): DomainError {
  const message = `the rendered texts together are over ${MAX_RENDERED_TOTAL} characters: send to fewer recipients at once`;
  return new DomainError(
    'PAYLOAD_TOO_LARGE',
    `The rendered messages are over ${MAX_RENDERED_TOTAL} characters in all.`,
    {
      errors: [{ path: 'recipients', message }],
    },
  );
}

async function phoneHasSim(executor: Executor, accountId: string, phoneId: string, sim: number): Promise<boolean> {
  const [row] = await queryRows<{ ok: boolean }>(
    executor,
    sql`select ${simFitsSql(sim)} as ok from phones p left join devices d on d.id = p.device_id
        where p.account_id = ${accountId}::uuid and p.id = ${phoneId}::uuid`,
  );
  return row?.ok === true;
}

/** Every recipient was rejected: 422 when all for one such reason (opt-out, country), else 400 naming each field. */
export function nothingToSend(rejected: RejectedRecipient[]): DomainError {
  for (const [code, detail] of [
    ['RECIPIENT_OPTED_OUT', 'Every recipient has opted out of your messages.'],
    ['RECIPIENT_COUNTRY_NOT_ALLOWED', 'No recipient is in a country this account (or group) allows.'],
  ] as const) {
    if (rejected.every((row) => row.code === code)) return new DomainError(code, detail, { extra: { rejected } });
  }
  return new DomainError('VALIDATION_ERROR', 'No recipient can be sent to.', {
    errors: rejected.map((row) => ({ path: row.field ?? `recipients.${row.index}`, message: row.detail })),
    extra: { rejected },
  });
}
