import type { WebhookReply } from '@/lib/automation/webhook-reply';
import { MAX_CONTENT_LENGTH } from '@/lib/messages/limits';

/**
 * The TwiML a Twilio-format webhook may answer an inbound message with: `<Response>` holding
 * `<Message>` elements (text, or a `<Body>`), each optionally `to="…"`. `<Response/>` sends nothing.
 * Only this messaging subset is read; anything else is malformed (the reason goes to the delivery log).
 */
export type TwimlResult = { replies: WebhookReply[] } | { error: string };

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

const ENTITY = /&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-z]+);/g;

/** XML text with its entities decoded; undefined when it holds markup, a bare `&` or an unknown entity. */
function decode(text: string): string | undefined {
  if (text.includes('<') || text.replace(ENTITY, '').includes('&')) return undefined;
  let bad = false;
  const out = text.replace(ENTITY, (_, name: string) => {
    const hex = name.startsWith('#x');
    const code = hex || name.startsWith('#') ? Number.parseInt(name.slice(hex ? 2 : 1), hex ? 16 : 10) : undefined;
    const known = code === undefined ? ENTITIES[name] : code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
    if (known === undefined) bad = true;
    return known ?? '';
  });
  return bad ? undefined : out;
}

function attributesOf(raw: string): Record<string, string> | undefined {
  const attributes: Record<string, string> = {};
  const rest = raw.replace(/\s*([A-Za-z_:][\w:.-]*)\s*=\s*("([^"]*)"|'([^']*)')/g, (_, name: string, _q, d, s) => {
    attributes[name] = decode(d ?? s ?? '') ?? '';
    return '';
  });
  return rest.trim() === '' ? attributes : undefined;
}

/** Reads a TwiML answer: the replies it asks for, or why it is malformed. */
export function parseTwiml(body: string): TwimlResult {
  const text = body
    .replace(/^\uFEFF/, '')
    .replace(/<\?xml[^?]*\?>/, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .trim();
  if (/^<Response\s*\/>$/.test(text)) return { replies: [] };
  const root = /^<Response(\s[^>]*)?>([\s\S]*)<\/Response>$/.exec(text);
  if (!root) return { error: 'malformed TwiML: the answer is not one <Response> element' };
  let inner = (root[2] ?? '').trim();
  const replies: WebhookReply[] = [];
  while (inner.length > 0) {
    const element = /^<Message(\s[^>]*)?(\/>|>([\s\S]*?)<\/Message>)/.exec(inner);
    if (!element) {
      const name = /^<([A-Za-z]+)/.exec(inner)?.[1];
      return {
        error: name
          ? `malformed TwiML: <${name}> is not supported (only <Message>)`
          : 'malformed TwiML: text outside <Message>',
      };
    }
    const attributes = attributesOf(element[1] ?? '');
    if (!attributes) return { error: 'malformed TwiML: a <Message> attribute does not parse' };
    let content = element[3] ?? '';
    const body = /^\s*<Body>([\s\S]*)<\/Body>\s*$/.exec(content);
    if (body) content = body[1] ?? '';
    const decoded = decode(content);
    if (decoded === undefined) return { error: 'malformed TwiML: a <Message> holds markup or a bad entity' };
    const message = decoded.trim();
    if (message.length > MAX_CONTENT_LENGTH) {
      return { error: `malformed TwiML: a <Message> is over ${MAX_CONTENT_LENGTH} characters` };
    }
    if (message.length > 0) replies.push({ content: message, ...(attributes.to ? { to: attributes.to } : {}) });
    inner = inner.slice(element[0].length).trim();
  }
  return { replies };
}
