/**
 * Background work of the server process (sweeps, webhook delivery). Each area adds its starter
 * here; `npm run worker` runs the same set in a separate process.
 */
export async function startBackgroundWork(): Promise<void> {}
