'use client';

import { Area, AreaChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';

export type BalancePoint = { date: string; balance: number };

function day(value: string): string {
  return new Date(`${value}T00:00:00Z`).toLocaleDateString([], { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

/** Closing balance per UTC day (recharts, loaded only by the credits page through next/dynamic). */
export default function BalanceChart({ points }: { points: BalancePoint[] }) {
  return (
    <ResponsiveContainer width="100%" height={220}>
      <AreaChart accessibilityLayer={false} data={points} margin={{ top: 8, right: 8, bottom: 0, left: -8 }}>
        <CartesianGrid stroke="#e2e8f0" strokeDasharray="3 3" />
        <XAxis dataKey="date" tickFormatter={day} fontSize={12} minTickGap={24} />
        <YAxis allowDecimals={false} fontSize={12} />
        <Tooltip labelFormatter={(value) => day(String(value))} formatter={(v) => [v, 'Credits']} />
        <Area
          type="stepAfter"
          dataKey="balance"
          stroke="#1d4ed8"
          fill="#dbeafe"
          strokeWidth={2}
          isAnimationActive={false}
        />
      </AreaChart>
    </ResponsiveContainer>
  );
}
