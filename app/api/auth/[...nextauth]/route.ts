import NextAuth from 'next-auth';
import { authOptions } from '@/lib/auth/next-auth';

type NextAuthContext = { params: Promise<{ nextauth: string[] }> };

// next-auth's client logger posts to `_log`, which writes whatever it is sent into the server
// log at any level: nobody may write our logs, so that endpoint does not exist here.
const CLIENT_LOG_ACTION = '_log';

// Options are built per request: the secret is only readable at run time, never during `next build`.
async function handler(req: Request, context: NextAuthContext): Promise<Response> {
  const { nextauth } = await context.params;
  if (nextauth?.[0] === CLIENT_LOG_ACTION) return new Response(null, { status: 404 });
  return NextAuth(req as never, context as never, authOptions());
}

export { handler as GET, handler as POST };
