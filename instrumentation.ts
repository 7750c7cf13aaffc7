export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { startServer } = await import('./lib/server/start');
  try {
    await startServer();
  } catch (error) {
    // A misconfigured instance refuses to start rather than answering errors to every request.
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
