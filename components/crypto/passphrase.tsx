'use client';

import { createContext, type ReactNode, useContext, useEffect, useId, useState } from 'react';
import { Field } from '@/components/ui/field';
import { tryDecryptSmsGate } from './smsgate-encryption';

/**
 * The SMSGate passphrase, held in this page's memory only (React state): never sent to the server,
 * never written to storage, gone on reload. It decrypts encrypted messages in the browser and
 * encrypts what the compose form sends.
 */
const PassphraseContext = createContext<{ passphrase: string; setPassphrase: (value: string) => void }>({
  passphrase: '',
  setPassphrase: () => {},
});

export function PassphraseProvider({ children }: { children: ReactNode }) {
  const [passphrase, setPassphrase] = useState('');
  return <PassphraseContext.Provider value={{ passphrase, setPassphrase }}>{children}</PassphraseContext.Provider>;
}

export function usePassphrase() {
  return useContext(PassphraseContext);
}

/** Decryptions of this page, by passphrase and ciphertext: PBKDF2 runs once per value. */
const decrypted = new Map<string, Promise<string | null>>();

function decryptOnce(value: string, passphrase: string): Promise<string | null> {
  const key = `${passphrase}\u0000${value}`;
  let found = decrypted.get(key);
  if (!found) {
    found = tryDecryptSmsGate(value, passphrase);
    decrypted.set(key, found);
  }
  return found;
}

export type Decryption =
  | { state: 'locked' }
  | { state: 'pending' }
  | { state: 'failed' }
  | { state: 'open'; text: string };

/** An encrypted value as the passphrase in memory opens it. */
export function useDecrypted(value: string): Decryption {
  const { passphrase } = usePassphrase();
  const [result, setResult] = useState<{ key: string; text: string | null } | null>(null);
  const key = `${passphrase}\u0000${value}`;
  useEffect(() => {
    if (!passphrase) return;
    let live = true;
    decryptOnce(value, passphrase).then((text) => {
      if (live) setResult({ key, text });
    });
    return () => {
      live = false;
    };
  }, [value, passphrase, key]);
  if (!passphrase) return { state: 'locked' };
  if (result?.key !== key) return { state: 'pending' };
  return result.text === null ? { state: 'failed' } : { state: 'open', text: result.text };
}

/** An encrypted value shown decrypted, or what stands in for it while it cannot be. */
export function EncryptedValue({ value, kind }: { value: string; kind: 'text' | 'number' }) {
  const decryption = useDecrypted(value);
  if (decryption.state === 'open') return <>{decryption.text}</>;
  const label =
    decryption.state === 'locked'
      ? `Encrypted ${kind} — enter the passphrase to read it`
      : decryption.state === 'pending'
        ? `Decrypting the ${kind}…`
        : `Encrypted ${kind} — this passphrase does not open it`;
  return (
    <em className="text-slate-600" title={value}>
      {label}
    </em>
  );
}

/** The passphrase field: what is typed stays in this page's memory. */
export function PassphraseField() {
  const id = useId();
  const { passphrase, setPassphrase } = usePassphrase();
  return (
    <div className="mb-4 max-w-md">
      <Field
        id={`${id}-passphrase`}
        label="Passphrase for encrypted messages"
        type="password"
        autoComplete="off"
        value={passphrase}
        onChange={(event) => setPassphrase(event.target.value)}
        hint="The passphrase set in the SMSGate app. Kept in this page's memory only: never sent to the server or stored."
      />
    </div>
  );
}
