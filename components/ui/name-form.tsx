'use client';

import { useState } from 'react';
import { Button } from './button';
import { Field } from './field';

/** A one-field "create" form (a key's or a group's name) that clears itself once saved. */
export function NameForm({
  id,
  label,
  submitLabel,
  pending,
  error,
  onSubmit,
}: {
  id: string;
  label: string;
  submitLabel: string;
  pending: boolean;
  error?: string;
  onSubmit: (name: string) => Promise<unknown>;
}) {
  const [name, setName] = useState('');
  return (
    <form
      className="mb-6 flex items-end gap-2"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit(name).then(
          () => setName(''),
          () => {},
        );
      }}
    >
      <div className="grow">
        <Field
          id={id}
          label={label}
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          maxLength={100}
          error={error}
        />
      </div>
      <Button type="submit" disabled={pending}>
        {pending ? 'Creating…' : submitLabel}
      </Button>
    </form>
  );
}
