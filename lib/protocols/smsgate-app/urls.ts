import { publicOrigin } from '@/lib/http/origin';

/** The app's server address: what the person types in the app (Settings → Cloud server). */
export const MOBILE_BASE_PATH = '/api/mobile/v1';

export function mobileBaseUrl(req: Request): string {
  return `${publicOrigin(req)}${MOBILE_BASE_PATH}`;
}

/** Where the app POSTs its webhook events for one device (signed with that device's key). */
export function callbackUrl(req: Request, deviceId: string): string {
  return `${mobileBaseUrl(req)}/callback/${deviceId}`;
}
