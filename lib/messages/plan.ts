import { sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { DomainError, validationError } from '@/lib/errors';
import { groupNotFound } from '@/lib/ids/groups';
import { countryOf } from '@/lib/phone-number';
import { chooseGroupPhones, simFitsSql } from './assign';
import * as eligible from './eligibility';
import { MAX_CONTENT_LENGTH, MAX_RENDERED_TOTAL } from './limits';
import { type ApiOrigin, type Screens, screensOf } from './origins';
import { monthlyResetAt, QUOTA_MONTH, quotaSimSql } from './quota';
import { countryNotAllowedText, optedOutText } from './refusals';
import { countSegments, type Encoding } from './segments';
import { findSenderPhone } from './sender-phone';
import { smartEncodingOn } from './smart-content';
import { smartEncode } from './smart-encoding';
import { parseTemplate, renderTemplate, type TemplateVars } from './template';

export type Recipient = string | { to: string; vars?: TemplateVars };

export type OutboundPlanInput = {
  /** Who asks for the send: the screens it passes (lib/messages/origins.ts). */
  origin: ApiOrigin;
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
  code:
    | 'VALIDATION_ERROR'
    | 'RECIPIENT_OPTED_OUT'
    | 'RECIPIENT_COUNTRY_NOT_ALLOWED'
    | 'RECIPIENT_QUOTA_REACHED'
    | 'DUPLICATE_REQUEST';
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
 * to, within the phones' monthly recipient caps (recipients past them are rejected,
 * RECIPIENT_QUOTA_REACHED). Repeated recipients are planned once (the first one counts). `lock` takes the phones'
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
  const screens = screensOf(input.origin);
  const sendable = await screenRecipients(executor, accountId, groupId, screens, rendered, rejected);
  if (sender) {
    const phone = { id: sender.id, phone: sender.phone };
    const within = await withinSenderQuota(executor, accountId, sender, input.sim ?? null, sendable, rejected);
    rejected.sort((a, b) => a.index - b.index);
    return {
      groupId: sender.groupId,
      senderPhoneId: sender.id,
      planned: within.map((m) => ({ ...m, phone })),
      rejected,
    };
  }
  const planned = await assignGroupPhones(executor, accountId, groupId, sendable, input, options, rejected);
  rejected.sort((a, b) => a.index - b.index);
  return { groupId, senderPhoneId: null, planned, rejected };
}

/**
 * The recipients a phone may text under its monthly recipient cap from the SIM the send counts for
 * (`sim`, lib/messages/quota.ts): those that SIM texted this month, then new ones while it has room;
 * the rest are rejected (RECIPIENT_QUOTA_REACHED).
 */
async function withinSenderQuota(
  executor: Executor,
  accountId: string,
  sender: { id: string; phone: string },
  sim: number | null,
  sendable: Array<Omit<PlannedMessage, 'phone'>>,
  rejected: RejectedRecipient[],
): Promise<Array<Omit<PlannedMessage, 'phone'>>> {
  const quotaSim = quotaSimSql(sql`${sim}::smallint`);
  const [quota] = await queryRows<{ cap: number | null; used: number; sim: number }>(
    executor,
    sql`select p.monthly_recipient_cap as cap, ${quotaSim} as sim, coalesce(c.recipients, 0) as used
        from phones p left join devices d on d.id = p.device_id
        left join sim_recipient_counts c on c.account_id = ${accountId}::uuid and c.phone_id = p.id
          and c.sim = ${quotaSim} and c.month = ${QUOTA_MONTH}
        where p.account_id = ${accountId}::uuid and p.id = ${sender.id}::uuid`,
  );
  if (!quota || quota.cap === null || sendable.length === 0) return sendable;
  const known = new Set(
    (
      await queryRows<{ recipient: string }>(
        executor,
        sql`select recipient from sim_recipients where account_id = ${accountId}::uuid and phone_id = ${sender.id}::uuid
            and sim = ${quota.sim}::smallint and month = ${QUOTA_MONTH}
            and recipient = any(${`{${sendable.map((m) => m.to).join(',')}}`}::text[])`,
      )
    ).map((row) => row.recipient),
  );
  let room = Number(quota.cap) - Number(quota.used);
  return sendable.filter((message) => {
    if (known.has(message.to)) return true;
    if (room > 0) {
      room -= 1;
      return true;
    }
    rejected.push(
      quotaRejection(message, `phone ${sender.phone} has reached its monthly_recipient_cap of ${quota.cap}`),
    );
    return false;
  });
}

function quotaRejection(message: { index: number; to: string }, detail: string): RejectedRecipient {
  return { index: message.index, to: message.to, code: 'RECIPIENT_QUOTA_REACHED', detail };
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

/**
 * The rendered recipients that pass the screens `screens` names; the others go to `rejected`, with
 * the text a single send refuses them with (lib/messages/refusals.ts). The opt-out and country rules
 * are the single send's own SQL (lib/messages/eligibility.ts), run once for all recipients: the
 * recipients travel as one JSON parameter, so a thousand of them are one statement of fixed text.
 */
async function screenRecipients(
  executor: Executor,
  accountId: string,
  groupId: number,
  screens: Screens,
  rendered: Array<Omit<PlannedMessage, 'phone'>>,
  rejected: RejectedRecipient[],
): Promise<Array<Omit<PlannedMessage, 'phone'>>> {
  if (rendered.length === 0) return rendered;
  const recipients = rendered.map((message) => ({ to: message.to, country: countryOf(message.to) ?? null }));
  const facts: eligible.SendFacts = {
    accountId: sql`${accountId}::uuid`,
    from: sql`null::text`,
    fromGroup: sql`${groupId}::int`,
    sim: sql`null::smallint`,
    to: sql`r."to"`,
    country: sql`r.country`,
    requestId: sql`null::text`,
  };
  const rows = await queryRows<{ to: string; opted_out: boolean; country_ok: boolean }>(
    executor,
    sql`select r."to", ${eligible.recipientOptedOut(facts)} as opted_out, ${eligible.countryAllowed(facts)} as country_ok
        from jsonb_to_recordset(${JSON.stringify(recipients)}::jsonb) as r("to" text, country text)
        join phone_groups g on g.account_id = ${accountId}::uuid and g.id = ${groupId}::int
        join accounts a on a.id = ${accountId}::uuid`,
  );
  // No row: the group is not the account's (a send through another account's group is 404, as everywhere).
  if (rows.length === 0) throw groupNotFound(groupId);
  const verdicts = new Map(rows.map((row) => [row.to, row]));
  return rendered.filter((message) => {
    const verdict = verdicts.get(message.to);
    if (screens.optOut && verdict?.opted_out) {
      rejected.push({
        index: message.index,
        to: message.to,
        code: 'RECIPIENT_OPTED_OUT',
        detail: optedOutText(message.to),
      });
      return false;
    }
    if (screens.country !== 'none' && verdict?.country_ok !== true) {
      rejected.push({
        index: message.index,
        to: message.to,
        code: 'RECIPIENT_COUNTRY_NOT_ALLOWED',
        detail: countryNotAllowedText(message.to),
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
  rejected: RejectedRecipient[],
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
  const planned: PlannedMessage[] = [];
  for (const message of sendable) {
    const phone = chosen.get(message.to);
    if (phone) planned.push({ ...message, phone: { id: phone.id, phone: phone.phone } });
    else
      rejected.push(quotaRejection(message, `no phone of group ${groupId} has room under its monthly_recipient_cap`));
  }
  return planned;
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

/**
 * Every recipient was rejected: 422 when all for one such reason (opt-out, country; one recipient's
 * answer is the single send's), else 400 naming each field.
 */
export function nothingToSend(rejected: RejectedRecipient[]): DomainError {
  const [only] = rejected;
  if (rejected.length === 1 && only && only.code !== 'VALIDATION_ERROR' && only.code !== 'DUPLICATE_REQUEST') {
    return new DomainError(only.code, only.detail, { extra: { rejected } });
  }
  for (const [code, detail] of [
    ['RECIPIENT_OPTED_OUT', 'Every recipient has opted out of your messages.'],
    ['RECIPIENT_COUNTRY_NOT_ALLOWED', 'No recipient is in a country this account (or group) allows.'],
    [
      'RECIPIENT_QUOTA_REACHED',
      `No sending phone has room under its monthly_recipient_cap for these recipients; the caps reset at ${monthlyResetAt().toISOString()}.`,
    ],
  ] as const) {
    if (rejected.every((row) => row.code === code)) return new DomainError(code, detail, { extra: { rejected } });
  }
  return new DomainError('VALIDATION_ERROR', 'No recipient can be sent to.', {
    errors: rejected.map((row) => ({ path: row.field ?? `recipients.${row.index}`, message: row.detail })),
    extra: { rejected },
  });
}
