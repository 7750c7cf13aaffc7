import { readSetting } from '@/lib/config/env';

// The benchmark's baseline: a bare route handler (parse JSON, answer 201) with none of our
// wrapper, auth or database work. Answers 404 unless the server runs with BENCH=1.
export async function POST(req: Request): Promise<Response> {
  if (!readSetting('BENCH')) return new Response(null, { status: 404 });
  const body = await req.json().catch(() => null);
  return Response.json({ ok: true, echoed: body !== null }, { status: 201 });
}
