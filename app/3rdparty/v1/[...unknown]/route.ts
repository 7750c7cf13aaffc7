export { DELETE, GET, PATCH, POST, PUT } from '@/app/api/3rdparty/v1/[...unknown]/route';
