// `npm start`: build once if there is no production build yet, then serve it.
// Local mode listens on 127.0.0.1 unless HOST says otherwise; PORT defaults to 3000.
//
// The server is Node's own http server around Next's request handler, so that the app learns each
// request's socket address, which Next's route handlers cannot see: it is passed on in the
// x-simgate-peer header with a token only this process knows (a client cannot forge it). The dev
// inbox uses it to answer loopback clients only.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const nextBin = path.join(root, 'node_modules', 'next', 'dist', 'bin', 'next');
const distDir = process.env.NEXT_DIST_DIR || '.next';

if (!fs.existsSync(path.join(root, distDir, 'BUILD_ID'))) {
  console.log('No production build yet: running `next build` once (about a minute)…');
  const build = spawnSync(process.execPath, [nextBin, 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? '3000');
const PEER_HEADER = 'x-simgate-peer';
const token = randomBytes(24).toString('hex');
process.env.SIMGATE_PEER_TOKEN = token;
process.env.NODE_ENV = 'production';

const { default: next } = await import('next');
const app = next({ dev: false, dir: root, hostname: host, port });
await app.prepare();
const handle = app.getRequestHandler();

const server = http.createServer((req, res) => {
  req.headers[PEER_HEADER] = `${token} ${req.socket.remoteAddress ?? ''}`;
  handle(req, res);
});
server.listen(port, host, () => {
  console.log(`Simgate ready on http://${host.includes(':') ? `[${host}]` : host}:${port}`);
});
