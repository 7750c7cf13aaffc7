// Placeholder until the ten-million-message scenario lands.
export async function measureBigTable(): Promise<{
  results: Record<string, unknown>;
  checks: Array<[string, boolean, string]>;
}> {
  throw new Error('BENCH_BIG_TABLE: not built yet');
}
