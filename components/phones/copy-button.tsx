'use client';

import { useEffect, useState } from 'react';
import { Button } from '../ui/button';

/** Copies a value to the clipboard; its name says what it copies, and it says "Copied" for a moment. */
export function CopyButton({ value, what }: { value: string; what: string }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 2000);
    return () => clearTimeout(timer);
  }, [copied]);
  return (
    <Button
      variant="secondary"
      aria-label={copied ? `${what} copied` : `Copy ${what}`}
      onClick={async () => {
        await navigator.clipboard?.writeText(value).catch(() => {});
        setCopied(true);
      }}
    >
      {copied ? 'Copied' : 'Copy'}
    </Button>
  );
}
