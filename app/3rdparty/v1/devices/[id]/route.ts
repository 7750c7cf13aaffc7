export { DELETE } from '@/app/api/3rdparty/v1/devices/[id]/route';
