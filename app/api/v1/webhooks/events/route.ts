import { presentCatalogue } from '@/lib/events/catalogue';
import { route } from '@/lib/http/route';

export const GET = route({ auth: 'none' }, async () => ({ data: presentCatalogue() }));
