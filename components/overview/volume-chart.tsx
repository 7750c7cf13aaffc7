'use client';

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { MessageStats } from '@/components/wire';

/** The colours of the states, as the message badges show them. */
export const VOLUME_SERIES = [
  { key: 'delivered', label: 'Delivered', color: '#15803d' },
  { key: 'sent', label: 'Sent', color: '#4f46e5' },
  { key: 'queued', label: 'Queued', color: '#64748b' },
  { key: 'failed', label: 'Failed', color: '#b91c1c' },
  { key: 'received', label: 'Received', color: '#0f766e' },
] as const;

/** Daily volume by state over 30 days (recharts, loaded only by the overview through next/dynamic). */
export default function VolumeChart({ daily }: { daily: MessageStats['daily'] }) {
  return (
    <ResponsiveContainer width="100%" height={240}>
      <BarChart accessibilityLayer={false} data={daily} margin={{ top: 8, right: 8, bottom: 0, left: -16 }}>
        <CartesianGrid stroke="#e2e8f0" strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="date" tickFormatter={(date: string) => date.slice(5)} fontSize={12} minTickGap={16} />
        <YAxis allowDecimals={false} fontSize={12} />
        <Tooltip />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        {VOLUME_SERIES.map((series) => (
          <Bar
            key={series.key}
            dataKey={series.key}
            name={series.label}
            stackId="volume"
            fill={series.color}
            isAnimationActive={false}
          />
        ))}
      </BarChart>
    </ResponsiveContainer>
  );
}
