export async function register() {
  // Only the Node.js server starts ours: written as a positive test, the edge build drops the whole
  // branch (and its Node-only process.exit) instead of compiling it and warning.
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    const { startServer } = await import('./lib/server/start');
    try {
      // Checks every setting first: a misconfigured instance refuses to start rather than
      // answering errors to every request.
      await startServer();
    } catch (error) {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    }
  }
}
