// The alert kinds and their rules as the dashboard reads them: components reach the schema's plain
// constants through lib/, never db/ directly.
export { ALERT_KINDS, ALERT_RULES, type AlertKind } from '@/db/schema/alert-kinds';
