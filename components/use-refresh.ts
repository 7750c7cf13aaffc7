'use client';

import { useQueryClient } from '@tanstack/react-query';

/**
 * Refetches the lists a change touched. Mutations return its promise from onSuccess, so they stay
 * pending until the screen shows the new state.
 */
export function useRefresh() {
  const queryClient = useQueryClient();
  return (...keys: string[]) => Promise.all(keys.map((key) => queryClient.invalidateQueries({ queryKey: [key] })));
}
