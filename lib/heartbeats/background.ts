/** Starts this area's background work; returns its stop function. */
export async function startFleetWork(): Promise<() => Promise<void>> {
  return async () => {};
}
