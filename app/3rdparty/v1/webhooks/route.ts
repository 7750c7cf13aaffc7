export { GET, POST } from '@/app/api/3rdparty/v1/webhooks/route';
