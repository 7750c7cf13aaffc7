'use client';

import { useQuery } from '@tanstack/react-query';
import { api } from '../api';
import type { Phone } from '../panels/phones-panel';

/** How often a screen that waits for the phone (a pairing code shown, a SIM check under way) asks again. */
export const LIVE_INTERVAL_MS = 2_000;

export type SimCard = { slot: number; phone_number: string | null; carrier: string | null };

export type Device = {
  id: string;
  kind: 'simulator' | 'app';
  name: string | null;
  status: 'pending_verification' | 'verified' | 'activated' | 'revoked';
  current: boolean;
  key_prefix: string | null;
  sim_cards: SimCard[];
  created_at: string;
  last_seen_at: string | null;
};

export type PairingCode = { code: string; expires_at: string; server_url: string };

/**
 * One phone. Every component that needs it observes the same query; each passes the interval it
 * needs, and TanStack Query asks as often as the most eager observer wants.
 */
export function usePhone(phoneId: string, refetchInterval: number | false = false) {
  return useQuery({
    queryKey: ['phones', phoneId],
    queryFn: () => api<Phone>(`/api/v1/phones/${phoneId}`),
    refetchInterval,
  });
}

export function usePhoneDevices(phoneId: string, refetchInterval: number | false = false) {
  return useQuery({
    queryKey: ['phones', phoneId, 'devices'],
    queryFn: () => api<{ data: Device[] }>(`/api/v1/phones/${phoneId}/devices`),
    refetchInterval,
  });
}

/** What a device is called in the dashboard: its key prefix, else its name, else the start of its id. */
export function deviceLabel(device: Device): string {
  return device.key_prefix ?? device.name ?? device.id.slice(0, 8);
}
