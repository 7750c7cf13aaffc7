import type { WebhookReply } from '@/lib/automation/webhook-reply';
import { MAX_CONTENT_LENGTH } from '@/lib/messages/limits';
import { REPLY_BODY_LIMIT } from '@/lib/webhooks/http-client';

/**
 * The TwiML a Twilio-format webhook may answer an inbound message with: `<Response>` holding
 * `<Message>` elements (text, or a `<Body>`), each optionally `to="…"`. `<Response/>` sends nothing.
 * Only this messaging subset is read; anything else is malformed (the reason goes to the delivery log).
 *
 * Read by a scanner that moves forward only (each `indexOf` starts where the last one ended), so the
 * time is linear in the answer; the answer is at most REPLY_BODY_LIMIT characters, and the subset has
 * three levels (Response, Message, Body): anything nested deeper is markup inside a message, refused.
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

const SPACE = /\s/;
const NAME_START = /[A-Za-z_:]/;
const NAME_CHAR = /[\w:.-]/;

function isSpace(char: string | undefined): boolean {
  return char !== undefined && SPACE.test(char);
}

/** A start tag's attributes (`name="value"` or `name='value'`, decoded), or undefined when they do not parse. */
function attributesOf(raw: string): Record<string, string> | undefined {
  const attributes: Record<string, string> = {};
  let at = 0;
  for (;;) {
    while (isSpace(raw[at])) at++;
    if (at === raw.length) return attributes;
    if (!NAME_START.test(raw[at] ?? '')) return undefined;
    const nameStart = at++;
    while (at < raw.length && NAME_CHAR.test(raw[at] ?? '')) at++;
    const name = raw.slice(nameStart, at);
    while (isSpace(raw[at])) at++;
    if (raw[at] !== '=') return undefined;
    at++;
    while (isSpace(raw[at])) at++;
    const quote = raw[at];
    if (quote !== '"' && quote !== "'") return undefined;
    const close = raw.indexOf(quote, at + 1);
    if (close === -1) return undefined;
    attributes[name] = decode(raw.slice(at + 1, close)) ?? '';
    at = close + 1;
  }
}

/** The text without `<!-- … -->` comments (an unclosed one stays, and fails as markup). */
function withoutComments(text: string): string {
  let out = '';
  let from = 0;
  for (;;) {
    const open = text.indexOf('<!--', from);
    const close = open === -1 ? -1 : text.indexOf('-->', open + 4);
    if (close === -1) return out + text.slice(from);
    out += text.slice(from, open);
    from = close + 3;
  }
}

/** The text without its first `<?xml …?>` declaration. */
function withoutDeclaration(text: string): string {
  let open = text.indexOf('<?xml');
  while (open !== -1) {
    const question = text.indexOf('?', open + 5);
    if (question === -1) return text;
    if (text[question + 1] === '>') return text.slice(0, open) + text.slice(question + 2);
    open = text.indexOf('<?xml', open + 1);
  }
  return text;
}

/** The start of an element at `at` (`<Name`), for the error of one that is not supported. */
function unsupported(text: string, at: number): { error: string } {
  const name = /<([A-Za-z]+)/y;
  name.lastIndex = at;
  const found = name.exec(text)?.[1];
  return {
    error: found
      ? `malformed TwiML: <${found}> is not supported (only <Message>)`
      : 'malformed TwiML: text outside <Message>',
  };
}

type Element = { attributes: string; content: string | null; end: number };

/**
 * The element `<tag …>…</tag>` or `<tag …/>` starting at `at`; undefined when there is none there.
 * Its content is up to the first closing tag: the subset does not nest an element in itself.
 */
function elementAt(text: string, at: number, tag: string): Element | undefined {
  const open = `<${tag}`;
  if (!text.startsWith(open, at)) return undefined;
  const headStart = at + open.length;
  const headEnd = text.indexOf('>', headStart);
  if (headEnd === -1) return undefined;
  const head = text.slice(headStart, headEnd);
  if (head !== '' && !isSpace(head[0]) && head !== '/') return undefined;
  if (head.endsWith('/')) return { attributes: head.slice(0, -1), content: null, end: headEnd + 1 };
  const closing = `</${tag}>`;
  const close = text.indexOf(closing, headEnd + 1);
  if (close === -1) return undefined;
  return { attributes: head, content: text.slice(headEnd + 1, close), end: close + closing.length };
}

/** A <Message>'s text: its content, or its one <Body>'s, decoded and trimmed; undefined when malformed. */
function messageText(content: string): string | undefined {
  const trimmed = content.trim();
  const body =
    trimmed.startsWith('<Body>') && trimmed.endsWith('</Body>')
      ? trimmed.slice('<Body>'.length, -'</Body>'.length)
      : content;
  return decode(body)?.trim();
}

/** Reads a TwiML answer: the replies it asks for, or why it is malformed. */
export function parseTwiml(body: string): TwimlResult {
  if (body.length > REPLY_BODY_LIMIT) {
    return { error: `malformed TwiML: the answer is over ${REPLY_BODY_LIMIT / 1024} KiB` };
  }
  const text = withoutComments(withoutDeclaration(body.replace(/^\uFEFF/, ''))).trim();
  const root = elementAt(text, 0, 'Response');
  if (!root || root.end !== text.length) {
    return { error: 'malformed TwiML: the answer is not one <Response> element' };
  }
  const inner = root.content ?? '';
  const replies: WebhookReply[] = [];
  let at = 0;
  for (;;) {
    while (isSpace(inner[at])) at++;
    if (at === inner.length) return { replies };
    const element = elementAt(inner, at, 'Message');
    if (!element) return unsupported(inner, at);
    const attributes = attributesOf(element.attributes);
    if (!attributes) return { error: 'malformed TwiML: a <Message> attribute does not parse' };
    const message = messageText(element.content ?? '');
    if (message === undefined) return { error: 'malformed TwiML: a <Message> holds markup or a bad entity' };
    if (message.length > MAX_CONTENT_LENGTH) {
      return { error: `malformed TwiML: a <Message> is over ${MAX_CONTENT_LENGTH} characters` };
    }
    if (message.length > 0) replies.push({ content: message, ...(attributes.to ? { to: attributes.to } : {}) });
    at = element.end;
  }
}
