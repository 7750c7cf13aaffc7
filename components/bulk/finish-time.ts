/**
 * How a bulk's `estimated_completion_at` reads in its progress view: "about 40 min, done by 14:20",
 * with the day when it is not today. Plain, so that it is tested without a browser.
 */
export function finishText(estimated: string, now: Date = new Date(), locale?: string): string {
  const at = new Date(estimated);
  const minutes = Math.round((at.getTime() - now.getTime()) / 60_000);
  const sameDay = at.toDateString() === now.toDateString();
  const clock = at.toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit' });
  const by = sameDay
    ? clock
    : `${at.toLocaleDateString(locale, { weekday: 'short', day: 'numeric', month: 'short' })} ${clock}`;
  if (minutes < 1) return `less than a minute, done by ${by}`;
  if (minutes < 60) return `about ${minutes} min, done by ${by}`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return `about ${hours} h${rest > 0 ? ` ${rest} min` : ''}, done by ${by}`;
}
