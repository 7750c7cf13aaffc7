// The SIDs are derived in lib/ (the /api/v1 group answer shows its MessagingServiceSid too).
export {
  ACCOUNT_SID,
  accountSidOf,
  MESSAGE_SID,
  MESSAGING_SERVICE_SID,
  messageIdOfSid,
  messageSidOf,
  messagingServiceSidOf,
} from '@/lib/ids/twilio';
