export { POST } from '@/app/api/3rdparty/v1/inbox/refresh/route';
