import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// Schemas carry their OpenAPI metadata (`.openapi(...)`): import `z` from here, never from 'zod'.
extendZodWithOpenApi(z);

export { z };
