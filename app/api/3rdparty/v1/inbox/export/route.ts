export { POST } from '@/app/api/3rdparty/v1/messages/inbox/export/route';
