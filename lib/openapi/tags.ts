/** The document's tags, in the order readers meet them. A route can only use a tag declared here. */
export const TAGS = {
  'Device activation': 'Register a phone by its number, prove its SIM, bind an email: the path to an account.',
  Authentication: 'Dashboard sign-in codes, sessions and the retired password endpoints.',
  'API keys': 'Account-wide keys (`sk_…`) for integrations. The key is shown once; the service keeps its hash.',
  Members:
    'The people of the account, by email, and their roles (owner, admin, developer, operator, viewer): what each may do is one table, enforced on every route. Invitations to join it are emailed links, valid 7 days.',
  Phones: 'The numbers of the account, their devices, pacing and SIM checks.',
  'Phone groups': 'Groups of phones; each holds its own credits.',
  Credits: 'Balances per group, transfers between groups and the ledger of every movement.',
  Messages: 'Send single and bulk messages, and read them with their state history.',
  'Sending settings':
    'Quiet hours, automatic retries and the destination-country allow-list, for the account and per group.',
  'Data retention':
    'How long message content, the webhook delivery log, heartbeats and the audit log are kept, and the account’s own shorter limits for message content.',
  'Opt-outs':
    'Numbers that texted STOP (or were added by hand): sends to them answer 422 RECIPIENT_OPTED_OUT, charged nothing.',
  Contacts:
    'The account’s address book: names, tags and notes for numbers, imported and exported as CSV. Messages, conversations and webhook payloads name the contact of their counterpart; a bulk message may target contacts by tag.',
  'Inbound automation':
    'Rules that answer, forward or hand on inbound SMS with no code of yours, the HELP responder, and replies straight from a webhook’s response.',
  'Email to SMS':
    'Mail to `<number>@<domain>` becomes an SMS (the SMTP server of docs/doors.md): the account’s choices for the text.',
  'Phone API': 'What a phone running the Simgate device client calls with its device key (`dk_…`).',
  Heartbeats: 'Online status and battery of phones, and their history.',
  Webhooks: 'Signed event deliveries to your endpoints, their log, and the event catalogue.',
  Alerts:
    'Alerts for account holders: thresholds per account, and the alerts raised and resolved against them (also emailed, and sent as `alert.*` webhook events).',
  'Audit log': 'Who changed credentials, money, phones and webhooks, and who signed in: when, and from where.',
  'SMSGate app (mobile)':
    'The private-server protocol of the unmodified SMSGate Android app, under `/api/mobile/v1`: camelCase, plain-JSON errors.',
  'SMSGate integrator API':
    'SMSGate’s integrator API (android-sms-gateway), at `/api/3rdparty/v1` and `/3rdparty/v1`, so SMSGate’s official clients and integrations work unchanged: HTTP Basic with any username and a Simgate API key as the password (or Bearer), SMSGate’s camelCase shapes and states, errors as `{ "message": … }`.',
  'Twilio-compatible API':
    'Twilio’s Messages API (2010-04-01) at the host root, so code written for Twilio sends and receives through the account’s phones: HTTP Basic with the Account SID and Auth Token, form-encoded bodies, Twilio’s JSON resources and its error body `{ code, message, more_info, status }`.',
  SMPP: 'Logins of the SMPP 3.4 server (`SMPP_PORT`): SMPP clients such as Kannel bind with a `system_id` and password to submit through the account’s phones and receive receipts and inbound messages. The password is shown once; the service keeps a salted hash.',
  Meta: 'This document, health checks and the development inbox.',
} as const;

export type TagName = keyof typeof TAGS;
