export { DELETE, GET } from '@/app/api/3rdparty/v1/messages/[id]/route';
