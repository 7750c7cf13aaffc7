import pkg from '@/package.json';

/**
 * The running code's version: package.json's, which a release sets. The health probes and
 * `simgate_build_info` report it.
 */
export const APP_VERSION: string = pkg.version;
