/** RFC 3339 UTC, as every timestamp on the wire. */
export function iso(date: Date | null | undefined): string | null {
  return date ? date.toISOString() : null;
}
