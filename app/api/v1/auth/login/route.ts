import { retiredPasswordAuth } from '@/lib/auth/retired';
import { route } from '@/lib/http/route';

export const POST = route({ auth: 'none' }, async () => retiredPasswordAuth());
