import NextAuth from 'next-auth';
import { authOptions } from '@/lib/auth/next-auth';

type NextAuthContext = { params: Promise<{ nextauth: string[] }> };

// Options are built per request: the secret is only readable at run time, never during `next build`.
function handler(req: Request, context: NextAuthContext): Promise<Response> {
  return NextAuth(req as never, context as never, authOptions());
}

export { handler as GET, handler as POST };
