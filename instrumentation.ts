export async function register() {
  // Only the Node.js server starts ours: written as a positive test, the edge build drops the whole
  // branch (and its Node-only process.exit) instead of compiling it and warning.
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    const { assertConfig, config } = await import('./lib/config');
    const { locateDatabase } = await import('./db');
    const { startServer } = await import('./lib/server/start');
    try {
      // A misconfigured instance refuses to start rather than answering errors to every request.
      assertConfig();
      locateDatabase(config.database);
      await startServer();
    } catch (error) {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    }
  }
}
