'use client';

import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';

export type BatteryPoint = { at: number; battery: number };

function time(value: number): string {
  return new Date(value).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

/** The battery line of one phone (recharts, loaded only by the phone page through next/dynamic). */
export default function BatteryChart({ points }: { points: BatteryPoint[] }) {
  return (
    <ResponsiveContainer width="100%" height={220}>
      <LineChart accessibilityLayer={false} data={points} margin={{ top: 8, right: 8, bottom: 0, left: -16 }}>
        <CartesianGrid stroke="#e2e8f0" strokeDasharray="3 3" />
        <XAxis
          dataKey="at"
          type="number"
          domain={['dataMin', 'dataMax']}
          scale="time"
          tickFormatter={time}
          fontSize={12}
        />
        <YAxis domain={[0, 100]} unit="%" fontSize={12} />
        <Tooltip
          labelFormatter={(value) => new Date(Number(value)).toLocaleString()}
          formatter={(v) => [`${v}%`, 'Battery']}
        />
        <Line
          type="monotone"
          dataKey="battery"
          stroke="#047857"
          strokeWidth={2}
          dot={{ r: 2 }}
          isAnimationActive={false}
        />
      </LineChart>
    </ResponsiveContainer>
  );
}
