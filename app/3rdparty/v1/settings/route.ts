export { GET, PATCH, PUT } from '@/app/api/3rdparty/v1/settings/route';
