export const CREATE_GROUP =
  'Names are unique per account, case-insensitively, after trimming. The name `Default` and ' +
  '`is_default: true` belong to the account’s default group (400 `DEFAULT_GROUP_LOCKED`). ' +
  'Counts toward the plan’s group maximum, the default group included.';

export const RENAME_GROUP =
  'The default group cannot be renamed, and no group can be renamed `Default` or made the default. ' +
  '`sending` overrides the account’s sending settings (send window, max attempts, allowed countries) for ' +
  'this group’s phones and sends; `"inherit"` drops one override. The default group is locked (400 ' +
  'DEFAULT_GROUP_LOCKED): its settings are the account’s, at /api/v1/settings/sending.';

export const DELETE_GROUP =
  'Its phones and its credits move to the default group in one transaction (the ledger records the ' +
  'move as `group_merge_out` / `group_merge_in`). The default group cannot be deleted.';
