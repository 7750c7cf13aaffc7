import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configProblems, envSchema } from '@/lib/config/env';
import { freePort } from '@/scripts/free-port';
import { activateDevice } from '@/tools/device-sim/activate';
import { DeviceClient } from '@/tools/device-sim/client';
import { testDatabaseUrl } from './database';
import { testNumber } from './fixtures';
import { until } from './poll';

/**
 * The release `npm run package` makes, run as a self-hoster runs it: unpacked into an empty folder
 * outside the repository, started with `node` alone under Node's permission model, which lets it
 * read nothing but that folder. Packages the production build in NEXT_DIST_DIR (the one `npm test`
 * makes); skipped without one. The Dockerfile and compose.yaml are checked against it and against
 * the configuration schema: no Docker engine runs here.
 */

const root = path.resolve(import.meta.dirname, '..');
const distDir = process.env.NEXT_DIST_DIR;
const packable = Boolean(distDir && fs.existsSync(path.join(root, distDir, 'standalone', distDir, 'BUILD_ID')));

/** A Dockerfile instruction's JSON (exec form) argument, of its last stage when `final`. */
function dockerfile() {
  const text = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8').replace(/\\\n\s*/g, '');
  const stages = text.split(/^FROM /m).slice(1);
  const lines = (stage: string, instruction: string) =>
    stage
      .split('\n')
      .filter((line) => line.startsWith(`${instruction} `))
      .map((line) => line.slice(instruction.length + 1).trim());
  const final = stages.at(-1) ?? '';
  const cmd = JSON.parse(lines(final, 'CMD')[0] ?? 'null') as string[];
  return { stages, final, lines, cmd };
}

/** The server's command: the image's CMD, run in the release's folder (the image's WORKDIR). */
const serverCommand = dockerfile().cmd;

/** Node's flag for its permission model (`--permission` from Node 22 on). */
const permissionFlag = process.allowedNodeEnvironmentFlags.has('--permission')
  ? '--permission'
  : '--experimental-permission';

type Spawned = { child: ChildProcess; output: () => string; exited: Promise<number | null> };

describe.runIf(packable)('the release (npm run package)', () => {
  /** The package's own output folder, and the empty folder the archive is unpacked into. */
  const packed = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-packed-'));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-release-'));
  const bundle = path.join(scratch, 'simgate');
  let packageOutput = '';
  const running: ChildProcess[] = [];

  /** `node <args>` confined to `scratch`: a file it reads outside it fails the run. */
  function node(args: string[], options: { cwd: string; env: Record<string, string> }): Spawned {
    const child = spawn(
      process.execPath,
      [
        permissionFlag,
        `--allow-fs-read=${scratch}/*`,
        `--allow-fs-write=${scratch}/*`,
        // start.mjs starts the server with its heap flags; a new data folder is created by a child.
        '--allow-child-process',
        ...args,
      ],
      {
        cwd: options.cwd,
        // As the image sets it, and none of this process's settings (NEXT_DIST_DIR, TEST_DATABASE_URL, …).
        env: {
          PATH: process.env.PATH ?? '',
          NODE_ENV: 'production',
          HOST: '127.0.0.1',
          LOG_LEVEL: 'warn',
          ...options.env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    running.push(child);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { child, output: () => output, exited };
  }

  /** A command of the release, run to its end from a working folder of its own. */
  async function command(name: string, args: string[], env: Record<string, string>) {
    const cwd = fs.mkdtempSync(path.join(scratch, 'cwd-'));
    const run = node([path.join(bundle, name), ...args], { cwd, env });
    const code = await run.exited;
    return { code, output: run.output() };
  }

  /** The server by the image's command, on a free port; resolves once /api/health/ready answers 200. */
  async function startServer(env: Record<string, string>, port?: number) {
    port ??= await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const [program, ...args] = serverCommand;
    expect(program).toBe('node');
    const server = node(args, { cwd: bundle, env: { PORT: String(port), ...env } });
    await until(
      async () => {
        if (server.child.exitCode !== null) throw new Error(`server exited:\n${server.output()}`);
        if (!server.output().includes(`Simgate ready on ${baseUrl}`)) return false;
        return (await fetch(`${baseUrl}/api/health/ready`)).status === 200;
      },
      { timeoutMs: 90_000, intervalMs: 100 },
    );
    return { ...server, baseUrl, port };
  }

  /** A phone activated through the simulator's client, sent a message that it then claims. */
  async function activateAndSend(baseUrl: string) {
    const phone = testNumber();
    const email = `release-${randomBytes(4).toString('hex')}@example.test`;
    const device = new DeviceClient({ baseUrl });
    const activation = await activateDevice(device, { phone, email, apiKeyName: 'release' });
    const sent = await fetch(`${baseUrl}/api/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': activation.apiKey ?? '' },
      body: JSON.stringify({ from: phone, to: testNumber(), content: 'from the release' }),
    });
    expect(sent.status).toBe(201);
    const { id } = (await sent.json()) as { id: string };
    const claimed = await device.claim({ limit: 5, waitSeconds: 0 });
    expect(claimed.map((message) => message.id)).toEqual([id]);
    return { email };
  }

  async function stop(server: Spawned) {
    server.child.kill('SIGTERM');
    expect(await server.exited, server.output()).toBe(0);
  }

  beforeAll(() => {
    const started = Date.now();
    const result = spawnSync(process.execPath, ['scripts/package.mjs', '--reuse-build', '--out', packed], {
      cwd: root,
      encoding: 'utf8',
      timeout: 300_000,
    });
    packageOutput = `${result.stdout}${result.stderr}`;
    expect(result.status, packageOutput).toBe(0);
    const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    const archive = path.join(packed, `simgate-${version}.tar.gz`);
    expect(spawnSync('tar', ['-xzf', archive, '-C', scratch]).status).toBe(0);
    console.log(`packaged and unpacked in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }, 320_000);

  afterAll(() => {
    for (const child of running) if (child.exitCode === null) child.kill('SIGKILL');
    fs.rmSync(packed, { recursive: true, force: true });
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('prints its size', () => {
    expect(packageOutput).toMatch(/simgate: \d+\.\d MB unpacked/);
    expect(packageOutput).toMatch(/simgate-[\d.]+\.tar\.gz: \d+\.\d MB/);
  });

  it('holds no path of the repository', () => {
    const needle = Buffer.from(root);
    const holding: string[] = [];
    for (const entry of fs.readdirSync(bundle, { withFileTypes: true, recursive: true })) {
      if (!entry.isFile()) continue;
      const file = path.join(entry.parentPath, entry.name);
      if (fs.readFileSync(file).includes(needle)) holding.push(path.relative(bundle, file));
    }
    expect(holding).toEqual([]);
  });

  it('serves on the embedded database; migrate and ops work on its data, the worker refuses it', async () => {
    const dataDir = path.join(scratch, 'embedded');
    const server = await startServer({ DATA_DIR: dataDir });
    const { email } = await activateAndSend(server.baseUrl);
    // The image's health check, as docker runs it.
    const [, ...check] = JSON.parse(dockerfile().lines(dockerfile().final, 'HEALTHCHECK')[0]!.split(' CMD ')[1]!);
    const probe = spawnSync(process.execPath, check, {
      env: { NODE_ENV: 'production', PORT: String(server.port) },
    });
    expect(probe.status, probe.stderr?.toString()).toBe(0);
    await stop(server);

    const migrate = await command('migrate.mjs', [], { DATA_DIR: dataDir });
    expect(migrate).toMatchObject({ code: 0, output: expect.stringContaining('migrations applied (pglite)') });
    const ops = await command('ops.mjs', ['accounts'], { DATA_DIR: dataDir });
    expect(ops).toMatchObject({ code: 0, output: expect.stringContaining(email) });
    const worker = await command('worker.mjs', [], { DATA_DIR: dataDir });
    expect(worker).toMatchObject({ code: 1, output: expect.stringContaining('needs DATABASE_URL') });
  }, 180_000);

  it.runIf(testDatabaseUrl())(
    'serves on PostgreSQL after migrate; the worker runs beside it and ops reads it',
    async () => {
      const admin = testDatabaseUrl() as URL;
      const name = `simgate_release_${randomBytes(5).toString('hex')}`;
      const sql = postgres(admin.toString(), { max: 1, onnotice: () => {} });
      await sql.unsafe(`create database ${name}`);
      const url = new URL(admin);
      url.pathname = `/${name}`;
      try {
        const port = await freePort();
        const settings = {
          DATABASE_URL: url.toString(),
          APP_SECRET: randomBytes(32).toString('hex'),
          APP_URL: `http://127.0.0.1:${port}`,
        };
        const migrate = await command('migrate.mjs', [], settings);
        expect(migrate).toMatchObject({ code: 0, output: expect.stringContaining('migrations applied (postgres)') });

        const worker = node([path.join(bundle, 'worker.mjs')], {
          cwd: scratch,
          env: { ...settings, LOG_LEVEL: 'info' },
        });
        await until(() => worker.output().includes('worker running'), { timeoutMs: 60_000, intervalMs: 50 });
        const server = await startServer({ ...settings, DEV_INBOX: '1', BACKGROUND: 'off' }, port);
        const { email } = await activateAndSend(server.baseUrl);
        const ops = await command('ops.mjs', ['accounts'], settings);
        expect(ops).toMatchObject({ code: 0, output: expect.stringContaining(email) });
        await stop(worker);
        await stop(server);
      } finally {
        await sql.unsafe(`drop database if exists ${name} with (force)`);
        await sql.end();
      }
    },
    180_000,
  );

  it("holds what the Dockerfile's final stage copies and runs", () => {
    const { stages, final, lines, cmd } = dockerfile();
    const build = stages[0] ?? '';
    const workdir = lines(build, 'WORKDIR')[0] ?? '/';
    const copies = lines(final, 'COPY').map((args) => args.split(/\s+/).filter((arg) => !arg.startsWith('--')));
    expect(copies.length).toBeGreaterThan(0);
    for (const [source] of copies) {
      // What the build stage's `npm run package` writes to <WORKDIR>/dist is in `packed` here.
      const relative = path.posix.relative(path.posix.join(workdir, 'dist'), source ?? '');
      expect(fs.existsSync(path.join(packed, relative)), `${source} in the build stage`).toBe(true);
    }
    expect(final).toMatch(/^COPY --from=build /m);
    expect(fs.existsSync(path.join(bundle, cmd[1] ?? ''))).toBe(true);
    expect(final, 'no npm install, no build in the final stage').not.toMatch(/^RUN .*\b(npm|npx|apt-get)\b/m);
  });
});

describe('the Dockerfile', () => {
  const { stages, final, lines, cmd } = dockerfile();

  it("builds with the repository's files and runs the release's server as a user, on SIGTERM", () => {
    expect(stages.length, 'a build stage and a final stage').toBe(2);
    expect(stages[0]).toMatch(/^RUN npm run package$/m);
    for (const args of lines(stages[0] ?? '', 'COPY')) {
      const sources = args.split(/\s+/).slice(0, -1);
      for (const source of sources) expect(fs.existsSync(path.join(root, source)), source).toBe(true);
    }
    expect(cmd).toEqual(serverCommand);
    expect(lines(final, 'USER')[0]).toMatch(/^(?!root\b|0\b)\w+/);
    expect(lines(final, 'STOPSIGNAL')).toEqual(['SIGTERM']);
    expect(lines(final, 'HEALTHCHECK')[0]).toContain('/api/health/live');
    expect(lines(final, 'HEALTHCHECK')[0]).not.toMatch(/\b(curl|wget)\b/);
  });

  it('keeps DATA_DIR on a volume', () => {
    const env = lines(final, 'ENV').join(' ');
    const dataDir = /\bDATA_DIR=(\S+)/.exec(env)?.[1];
    expect(dataDir).toBeDefined();
    expect(lines(final, 'VOLUME')).toContain(dataDir);
  });

  it('leaves out of the build context what the build makes or must not see', () => {
    const ignored = fs.readFileSync(path.join(root, '.dockerignore'), 'utf8').split('\n');
    for (const entry of ['node_modules', 'dist', '.env*', '.git', '.data']) expect(ignored).toContain(entry);
  });
});

describe('compose.yaml', () => {
  const compose = parse(fs.readFileSync(path.join(root, 'compose.yaml'), 'utf8'), { merge: true });
  const simgate = ['app', 'worker'] as const;
  /** The values compose fills in from the environment or .env, as an operator would set them. */
  const given: Record<string, string> = {
    APP_URL: 'https://sms.example.com',
    APP_SECRET: 'x'.repeat(48),
    POSTGRES_PASSWORD: 'secret',
  };
  /** `${NAME}`, `${NAME:-default}` and `${NAME:?error}` as compose reads them. */
  const interpolate = (value: string) =>
    value.replace(
      /\$\{(\w+)(:[-?])?([^}]*)\}/g,
      (_, name: string, operator?: string, rest?: string) => given[name] ?? (operator === ':-' ? (rest ?? '') : ''),
    );

  it('names only settings the configuration knows', () => {
    const known = Object.keys(envSchema.shape);
    for (const service of simgate) {
      const names = Object.keys(compose.services[service].environment);
      expect(
        names.filter((name) => !known.includes(name)),
        service,
      ).toEqual([]);
    }
  });

  it('sets everything server mode requires, and the settings it sets are valid', () => {
    for (const service of simgate) {
      const env = Object.fromEntries(
        Object.entries(compose.services[service].environment as Record<string, string>).map(([name, value]) => [
          name,
          interpolate(value),
        ]),
      );
      expect(env.DATABASE_URL, service).toMatch(/^postgres:\/\/.+@postgres:5432\//);
      expect(configProblems(env), service).toEqual([]);
    }
  });

  it('requires APP_URL, APP_SECRET and the database password rather than running without them', () => {
    const environment = JSON.stringify(compose.services.app.environment);
    for (const name of Object.keys(given)) expect(environment).toContain(`\${${name}:?`);
  });

  it('runs the worker and PostgreSQL with its own volume and a health check the others wait for', () => {
    expect(compose.services.worker.command).toEqual(['node', 'worker.mjs']);
    expect(compose.services.app.environment.BACKGROUND).toBe('off');
    const database = compose.services.postgres;
    expect(database.image).toMatch(/^postgres:16/);
    const [volume] = String(database.volumes[0]).split(':');
    expect(Object.keys(compose.volumes)).toContain(volume);
    expect(database.healthcheck.test.join(' ')).toContain('pg_isready');
    for (const service of simgate) {
      expect(compose.services[service].depends_on.postgres.condition).toBe('service_healthy');
    }
  });
});
