'use client';

import { useQueryClient } from '@tanstack/react-query';
import { queryKeys, type Resource } from './query-keys';

/**
 * Refetches the resources a change touched. Mutations return its promise from onSuccess, so they stay
 * pending until the screen shows the new state.
 */
export function useRefresh() {
  const queryClient = useQueryClient();
  return (...resources: Resource[]) =>
    Promise.all(resources.map((resource) => queryClient.invalidateQueries({ queryKey: queryKeys[resource].root })));
}
