'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiProblem, api } from '../api';
import { queryKeys } from '../query-keys';
import { Button } from '../ui/button';
import { Field } from '../ui/field';
import { Section } from '../ui/section';
import { ErrorState, Loading } from '../ui/states';
import { useRefresh } from '../use-refresh';

type EmailAddress = { id: string; email: string; status: 'pending' | 'confirmed' };
type EmailAddressList = { account_email: string; data: EmailAddress[] };

/** The addresses "Forward by email" may send to: the account's own, and those confirmed by link. */
export function EmailAddressesPanel() {
  const list = useQuery({
    queryKey: queryKeys.emailAddresses.list(),
    queryFn: () => api<EmailAddressList>('/api/v1/email-addresses'),
  });
  const refresh = useRefresh();
  const remove = useMutation({
    mutationFn: (id: string) => api<void>(`/api/v1/email-addresses/${id}`, { method: 'DELETE' }),
    meta: { success: 'Address removed' },
    onSuccess: () => refresh('emailAddresses'),
  });
  return (
    <Section title="Email addresses">
      <p className="mb-3 text-sm text-slate-600">
        Rules forward by email only to your sign-in email and to addresses whose owner opened the confirmation link.
      </p>
      {list.isPending ? (
        <Loading />
      ) : list.error ? (
        <ErrorState error={list.error} onRetry={() => list.refetch()} />
      ) : (
        <ul className="mb-4 flex flex-col gap-2 text-sm">
          <li>
            {list.data.account_email} <span className="text-slate-600">(your sign-in email)</span>
          </li>
          {list.data.data.map((address) => (
            <li key={address.id} className="flex items-center justify-between gap-2">
              <span>
                {address.email}{' '}
                <span className={address.status === 'confirmed' ? 'text-green-800' : 'text-amber-800'}>
                  ({address.status === 'confirmed' ? 'confirmed' : 'waiting for confirmation'})
                </span>
              </span>
              <Button variant="secondary" disabled={remove.isPending} onClick={() => remove.mutate(address.id)}>
                Remove
              </Button>
            </li>
          ))}
        </ul>
      )}
      <AddAddressForm />
    </Section>
  );
}

function AddAddressForm() {
  const [email, setEmail] = useState('');
  const refresh = useRefresh();
  const add = useMutation({
    mutationFn: (value: string) => api<EmailAddress>('/api/v1/email-addresses', { body: { email: value } }),
    meta: { success: 'Confirmation sent: the address works once its link is opened' },
    onSuccess: () => {
      setEmail('');
      return refresh('emailAddresses');
    },
  });
  const error = add.error instanceof ApiProblem ? (add.error.fieldError('email') ?? add.error.message) : undefined;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate(email.trim());
  };
  return (
    <form className="flex flex-col gap-3" onSubmit={submit}>
      <Field
        id="forward-email-address"
        label="Add an address"
        type="email"
        placeholder="desk@example.com"
        value={email}
        onChange={(event) => setEmail(event.target.value)}
        error={error}
        required
      />
      <div>
        <Button type="submit" disabled={add.isPending}>
          {add.isPending ? 'Sending…' : 'Send confirmation'}
        </Button>
      </div>
    </form>
  );
}
