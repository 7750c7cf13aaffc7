export { GET } from '@/app/api/3rdparty/v1/health/route';
