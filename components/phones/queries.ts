'use client';

import { useQuery } from '@tanstack/react-query';
import { queryKeys } from '@/components/query-keys';
import type { Device, PairingCode, Phone, SimCard } from '@/components/wire';
import { api } from '../api';

/** How often a screen that waits for the phone (a pairing code shown, a SIM check under way) asks again. */
export const LIVE_INTERVAL_MS = 2_000;

/**
 * One phone. Every component that needs it observes the same query; each passes the interval it
 * needs, and TanStack Query asks as often as the most eager observer wants.
 */
export function usePhone(phoneId: string, refetchInterval: number | false = false) {
  return useQuery({
    queryKey: queryKeys.phones.one(phoneId),
    queryFn: () => api<Phone>(`/api/v1/phones/${phoneId}`),
    refetchInterval,
  });
}

export function usePhoneDevices(phoneId: string, refetchInterval: number | false = false) {
  return useQuery({
    queryKey: queryKeys.phones.devices(phoneId),
    queryFn: () => api<{ data: Device[] }>(`/api/v1/phones/${phoneId}/devices`),
    refetchInterval,
  });
}

/** What a device is called in the dashboard: its key prefix, else its name, else the start of its id. */
export function deviceLabel(device: Device): string {
  return device.key_prefix ?? device.name ?? device.id.slice(0, 8);
}

export type { Device, PairingCode, SimCard };
