/** Starts this area's background work; returns its stop function. */
export async function startWebhookWork(): Promise<() => Promise<void>> {
  return async () => {};
}
