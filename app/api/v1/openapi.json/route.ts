import { route } from '@/lib/http/route';
import { openApiDocument } from '@/lib/openapi/document';

export const GET = route({ auth: 'none' }, async () => openApiDocument());
