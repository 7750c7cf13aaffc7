/**
 * A phone's battery as a native gauge (the browser colours it: good above 50 %, a warning below,
 * bad under 20 %) beside its percentage.
 */
export function BatteryGauge({ level, label }: { level: number | null; label: string }) {
  if (level === null) return <span className="text-slate-500">—</span>;
  return (
    <span className="inline-flex items-center gap-2">
      <meter aria-label={label} className="h-3 w-12" min={0} max={100} low={20} high={50} optimum={100} value={level} />
      <span className="tabular-nums">{level}%</span>
    </span>
  );
}
