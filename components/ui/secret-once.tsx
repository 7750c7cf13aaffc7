'use client';

import { useState } from 'react';
import { Button } from './button';

/** A secret the API shows once: displayed with a copy button and a warning. */
export function SecretOnce({ label, value, onDone }: { label: string; value: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div role="status" className="rounded-md border border-amber-300 bg-amber-50 p-4">
      <p className="text-sm font-medium text-amber-900">{label}</p>
      <p className="mt-1 text-xs text-amber-800">Copy it now: it will not be shown again.</p>
      <div className="mt-2 flex items-center gap-2">
        <code data-testid="secret-value" className="break-all rounded bg-white px-2 py-1 text-sm">
          {value}
        </code>
        <Button
          variant="secondary"
          onClick={async () => {
            await navigator.clipboard?.writeText(value).catch(() => {});
            setCopied(true);
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </Button>
        <Button variant="secondary" onClick={onDone}>
          Done
        </Button>
      </div>
    </div>
  );
}
