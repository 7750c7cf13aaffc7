import { readSetting } from '@/lib/config/env';
import { analyzeMessages } from '@/lib/server/embedded-maintenance';

// The benchmark's planner statistics (lib/server/embedded-maintenance.ts `analyzeMessages`).
// Answers 404 unless the server runs with BENCH=1.
export async function POST(): Promise<Response> {
  if (!readSetting('BENCH')) return new Response(null, { status: 404 });
  await analyzeMessages();
  return new Response(null, { status: 204 });
}
