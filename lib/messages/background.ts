/** Starts this area's background work; returns its stop function. */
export async function startMessagingWork(): Promise<() => Promise<void>> {
  return async () => {};
}
