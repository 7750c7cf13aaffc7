export * from './accounts';
export * from './alerts';
export * from './audit';
export * from './automation';
export type {
  AutomationAction,
  AutomationEntry,
  AutomationSkipReason,
  MessageOriginKind,
  RuleActionType,
} from './automation-record';
export * from './contacts';
export * from './credits';
export * from './dev-inbox';
export * from './devices';
export * from './email';
export * from './events';
export * from './fleet';
export * from './keys';
export * from './members';
export * from './messages';
export * from './opt-outs';
export * from './rate-limits';
export * from './retention-modes';
export * from './smpp';
export * from './smsgate';
export * from './statistics';
export * from './webhooks';
