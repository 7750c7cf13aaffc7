export { POST } from '@/app/api/3rdparty/v1/auth/token/route';
