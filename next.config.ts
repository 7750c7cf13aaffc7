import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // PGlite loads its WASM and data files by path: bundling it breaks the first database open.
  // The doors' servers (lib/protocols/email, lib/protocols/smpp) load their protocol libraries from node_modules:
  // CommonJS with dynamic requires (iconv-lite's encodings), which bundling gains nothing from.
  // prom-client: the primary of several web processes (scripts/serve.mjs) sums their metrics with it,
  // so a release must hold it in its node_modules.
  serverExternalPackages: [
    '@electric-sql/pglite',
    'pino',
    'postgres',
    'smtp-server',
    'mailparser',
    'smpp',
    'prom-client',
  ],
  // The server with only the files it needs (.next/standalone): `npm run package` builds the release from it.
  output: 'standalone',
  // sharp serves next/image, which the app does not use: about 20 MB less in a release.
  outputFileTracingExcludes: { '*': ['node_modules/sharp/**', 'node_modules/@img/**'] },
  poweredByHeader: false,
  experimental: { serverMinification: process.env.NEXT_SERVER_MINIFY !== '0' },
  // The browser tests build into their own folder, so they never race a developer's build.
  distDir: process.env.NEXT_DIST_DIR || '.next',
  typescript: { ignoreBuildErrors: true }, // `npm run typecheck` is the one type gate (npm test runs it)
  // SMSGate's clients call the integrator API at /3rdparty/v1 as well as at /api/3rdparty/v1: one
  // handler serves both. The handler sees the path the client asked for (its Location headers and
  // 404s name it), and route() guards both paths (lib/http/front-door.ts), which proxy.ts leaves out.
  async rewrites() {
    return {
      beforeFiles: [{ source: '/3rdparty/v1/:path+', destination: '/api/3rdparty/v1/:path+' }],
      afterFiles: [],
      fallback: [],
    };
  },
};

export default nextConfig;
