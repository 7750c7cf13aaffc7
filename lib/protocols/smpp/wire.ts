import smpp, { type PDU, type PduFields } from 'smpp';
import type { SmppDeliveryPayload } from '@/lib/smpp/types';
import type { StatusName } from './statuses';

/** data_coding values a submit may use: SMSC default (GSM 03.38), IA5, Latin-1, UCS-2. */
const TEXT_CODINGS = new Set([0x00, 0x01, 0x03, 0x08]);

/** One submit_sm's text and, when it is a part of a concatenated message, which part. */
export type SubmitText = {
  text: string;
  part?: { ref: number; total: number; seq: number };
};

type Decoded = { message?: unknown; udh?: unknown };

function concatenationOf(pdu: PDU, udh: unknown): SubmitText['part'] {
  if (Array.isArray(udh)) {
    for (const element of udh as Buffer[]) {
      // IEI 0x00: 8-bit reference; 0x08: 16-bit reference (3GPP TS 23.040, 9.2.3.24.1 and .8).
      if (element[0] === 0x00 && element[1] === 3 && element.length >= 5) {
        return { ref: element[2]!, total: element[3]!, seq: element[4]! };
      }
      if (element[0] === 0x08 && element[1] === 4 && element.length >= 6) {
        return { ref: element.readUInt16BE(2), total: element[4]!, seq: element[5]! };
      }
    }
  }
  const { sar_msg_ref_num: ref, sar_total_segments: total, sar_segment_seqnum: seq } = pdu;
  if (typeof ref === 'number' && typeof total === 'number' && typeof seq === 'number') return { ref, total, seq };
  return undefined;
}

/** The text of a submit_sm (short_message or message_payload), or the status that refuses it. */
export function submitTextOf(pdu: PDU): SubmitText | StatusName {
  const coding = Number(pdu.data_coding ?? 0) & 0xff;
  if (!TEXT_CODINGS.has(coding)) return 'ESME_RINVDCS';
  const short = pdu.short_message as Decoded | undefined;
  const payload = pdu.message_payload as Decoded | undefined;
  const chosen = payload && typeof payload.message === 'string' && payload.message.length > 0 ? payload : short;
  if (!chosen || typeof chosen.message !== 'string') return 'ESME_RINVMSGLEN';
  const part = concatenationOf(pdu, short?.udh);
  if (part && (part.total < 1 || part.seq < 1 || part.seq > part.total)) return 'ESME_RINVMSGLEN';
  return { text: chosen.message, part: part && part.total > 1 ? part : undefined };
}

/**
 * An SMPP address as E.164: `+` and digits, or digits alone (international, TON 1, or unknown).
 * undefined when it is not a number (alphanumeric senders, empty).
 */
export function e164Of(address: unknown): string | undefined {
  if (typeof address !== 'string') return undefined;
  const trimmed = address.trim();
  if (!/^\+?\d{4,15}$/.test(trimmed)) return undefined;
  return trimmed.startsWith('+') ? trimmed : `+${trimmed}`;
}

/** schedule_delivery_time or validity_period as decoded by the codec: a Date, or nothing given. */
export function timeOf(value: unknown): Date | undefined | 'invalid' {
  if (value === undefined || value === null || value === '') return undefined;
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) return 'invalid';
  return value;
}

/** `YYMMDDhhmm` in UTC, as delivery receipts write their dates. */
export function receiptDate(isoTime: string | undefined): string {
  const date = isoTime ? new Date(isoTime) : new Date();
  const at = Number.isNaN(date.getTime()) ? new Date() : date;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(at.getUTCFullYear() % 100)}${two(at.getUTCMonth() + 1)}${two(at.getUTCDate())}${two(at.getUTCHours())}${two(at.getUTCMinutes())}`;
}

/** A Simgate state as a receipt's `stat` and the message_state TLV (SMPP 3.4, §5.2.28). */
const RECEIPT_STATES: Record<string, { stat: string; state: number }> = {
  sent: { stat: 'ENROUTE', state: 1 },
  delivered: { stat: 'DELIVRD', state: 2 },
  expired: { stat: 'EXPIRED', state: 3 },
  cancelled: { stat: 'DELETED', state: 4 },
  failed: { stat: 'UNDELIV', state: 5 },
};
const REJECTED = { stat: 'REJECTD', state: 8 };

function digits(e164: string): string {
  return e164.startsWith('+') ? e164.slice(1) : e164;
}

/** Characters a receipt's `text:` may carry: those GSM 03.38 and ASCII encode alike, so any ESME reads them. */
function receiptSnippet(content: string): string {
  return content.slice(0, 20).replace(/[^A-Za-z0-9 .,:;!?()+\-/]/g, '.');
}

/** The customary receipt text (SMPP 3.4, Appendix B). */
export function receiptText(payload: SmppDeliveryPayload): string {
  const { stat } = RECEIPT_STATES[payload.status ?? ''] ?? REJECTED;
  const delivered = stat === 'DELIVRD' ? '001' : '000';
  const err = stat === 'DELIVRD' || stat === 'ENROUTE' ? '000' : '001';
  return (
    `id:${payload.messageId} sub:001 dlvrd:${delivered} submit date:${receiptDate(payload.submittedAt)} ` +
    `done date:${receiptDate(payload.doneAt)} stat:${stat} err:${err} text:${receiptSnippet(payload.content)}`
  );
}

const SHORT_MESSAGE_MAX = 254;

/** A text as deliver_sm fields: GSM 03.38 when it can be, else UCS-2; message_payload when too long. */
function textFields(text: string): PduFields {
  const gsm = smpp.encodings.ASCII.match(text);
  const dataCoding = gsm ? 0x00 : 0x08;
  const length = gsm ? smpp.encodings.ASCII.encode(text).length : smpp.encodings.UCS2.encode(text).length;
  if (length <= SHORT_MESSAGE_MAX) return { data_coding: dataCoding, short_message: text };
  return { data_coding: dataCoding, short_message: '', message_payload: text };
}

const INTERNATIONAL = { ton: 0x01, npi: 0x01 };

/** The deliver_sm of a queued receipt or inbound message. */
export function deliverFields(kind: 'receipt' | 'mo', payload: SmppDeliveryPayload): PduFields {
  if (kind === 'mo') {
    return {
      source_addr_ton: INTERNATIONAL.ton,
      source_addr_npi: INTERNATIONAL.npi,
      source_addr: digits(payload.from),
      dest_addr_ton: INTERNATIONAL.ton,
      dest_addr_npi: INTERNATIONAL.npi,
      destination_addr: digits(payload.to),
      esm_class: 0x00,
      ...textFields(payload.content),
    };
  }
  const { state } = RECEIPT_STATES[payload.status ?? ''] ?? REJECTED;
  // A receipt comes from the recipient, back to the submitter's address.
  return {
    source_addr_ton: INTERNATIONAL.ton,
    source_addr_npi: INTERNATIONAL.npi,
    source_addr: digits(payload.to),
    dest_addr_ton: INTERNATIONAL.ton,
    dest_addr_npi: INTERNATIONAL.npi,
    destination_addr: digits(payload.from),
    esm_class: 0x04,
    data_coding: 0x00,
    short_message: receiptText(payload),
    receipted_message_id: payload.messageId,
    message_state: state,
  };
}
