import { type SQL, sql } from 'drizzle-orm';
import type { HistoryStatus } from '@/lib/messages/history';
import type { MessageStatus } from '@/lib/messages/states';
import type { ProcessingState } from './schemas';

/** Simgate's message states as SMSGate names them; never a state outside SMSGate's enum. */
export const STATE_OF: Record<MessageStatus, ProcessingState> = {
  queued: 'Pending',
  dispatched: 'Processed',
  cancelling: 'Cancelling',
  sent: 'Sent',
  delivered: 'Delivered',
  failed: 'Failed',
  expired: 'Failed',
  cancelled: 'Cancelled',
  received: 'Delivered',
};

/** A history entry's state, if it is one SMSGate shows (`rerouted`, `retrying` are not). */
export function stateOfHistory(status: HistoryStatus): ProcessingState | undefined {
  return status in STATE_OF ? STATE_OF[status as MessageStatus] : undefined;
}

/** The order a message moves through: the whole message is as far as its slowest live recipient. */
const PROGRESS: ProcessingState[] = ['Pending', 'Processed', 'Cancelling', 'Sent', 'Delivered'];

/** `status` (a messages.status expression) as SMSGate's state, in SQL. */
export function stateSql(status: SQL): SQL {
  const cases = Object.entries(STATE_OF).map(
    ([from, to]) => sql`when ${sql.raw(`'${from}'`)} then ${sql.raw(`'${to}'`)}`,
  );
  return sql`(case ${status} ${sql.join(cases, sql` `)} end)`;
}

/**
 * The state of a whole SMSGate message from its recipients' states `st` (a column of the rows
 * aggregated), as an aggregate expression: Failed (or Cancelled, when all were) once no recipient
 * is live, else the state of the slowest live one. A recipient refused at sending counts as Failed.
 */
export function aggregateStateSql(st: SQL): SQL {
  const progress = sql.raw(`array[${PROGRESS.map((s) => `'${s}'`).join(', ')}]`);
  return sql`(case
    when count(*) filter (where ${st} not in ('Failed', 'Cancelled')) = 0
      then case when bool_and(${st} = 'Cancelled') then 'Cancelled' else 'Failed' end
    else (${progress})[min(array_position(${progress}, ${st})) filter (where ${st} not in ('Failed', 'Cancelled'))]
  end)`;
}

/** The states in SQL, as lib/integrations/smsgate-messages aggregates them. */
export const STATES_SQL = { of: stateSql, aggregate: aggregateStateSql };
