'use client';

import { MutationCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { Toaster, toast } from 'sonner';
import { ApiProblem, errorMessage } from './api';
import { PassphraseProvider } from './crypto/passphrase';

declare module '@tanstack/react-query' {
  interface Register {
    /** `success`: the toast shown when the mutation succeeds; `quiet`: the form shows the outcome itself. */
    mutationMeta: { success?: string; quiet?: boolean };
  }
}

/**
 * Every mutation reports its outcome as a toast: failures always (unless the API named a field, which
 * the form shows at the field), successes when the mutation names one in `meta.success`.
 */
function mutationToasts() {
  return new MutationCache({
    onSuccess: (_data, _variables, _context, mutation) => {
      if (mutation.meta?.success) toast.success(mutation.meta.success);
    },
    onError: (error, _variables, _context, mutation) => {
      if (mutation.meta?.quiet) return;
      if (error instanceof ApiProblem && error.errors.length > 0) return;
      toast.error(errorMessage(error));
    },
  });
}

export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        mutationCache: mutationToasts(),
        defaultOptions: {
          queries: {
            staleTime: 5_000,
            // A 4xx will not get better by asking again.
            retry: (failures, error) => !(error instanceof ApiProblem && error.status < 500) && failures < 2,
          },
        },
      }),
  );
  return (
    <QueryClientProvider client={client}>
      <PassphraseProvider>{children}</PassphraseProvider>
      <Toaster closeButton position="bottom-right" toastOptions={{ duration: 5_000 }} />
    </QueryClientProvider>
  );
}
