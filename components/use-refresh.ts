'use client';

import { useQueryClient } from '@tanstack/react-query';
import { queryKeys, type Resource } from './query-keys';

/**
 * Refetches the resources a change touched. Mutations return its promise from onSuccess, so they stay
 * pending until the screen shows the new state.
 *
 * Fetches in flight are cancelled first. Invalidating cancels a refetch of data already shown, but a
 * query's first load it joins instead, and that load was asked for before the change: a key created
 * while its list was still loading was missing from the list until the next refetch (the API keys
 * spec failed 1 in 8).
 */
export function useRefresh() {
  const queryClient = useQueryClient();
  return (...resources: Resource[]) =>
    Promise.all(
      resources.map(async (resource) => {
        const queryKey = queryKeys[resource].root;
        await queryClient.cancelQueries({ queryKey });
        await queryClient.invalidateQueries({ queryKey });
      }),
    );
}
