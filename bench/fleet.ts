// The connections scenario's phones (bench/connections.ts), held by load-generator processes of their own:
// one process may hold 20,000 descriptors here (`ulimit -Hn`), fewer than 20,000 phones' sockets and
// the rest, so each holds at most PHONES_PER_CLIENT phones. The scenario talks to them over IPC: it
// asks for their counts, marks the moment of a restart, and watches a phone for a send's wake-up.

import { type ChildProcess, fork } from 'node:child_process';
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** Phones per load-generator process: their sockets, with room under the 20,000 descriptors of one. */
export const PHONES_PER_CLIENT = 10_000;
/** The long-poll's `wait`, as the simulator asks. */
const POLL_WAIT_S = 25;
/** Only one kind of connection (`stream` or `poll`), for looking at one at a time. */
const ONLY_KIND = (process.env.BENCH_CONNECTIONS_KIND as 'stream' | 'poll' | undefined) || undefined;
/** The kind of the phone at `index`: BENCH_CONNECTIONS_KIND's, else streams at even indexes, long-polls at odd. */
export const kindOf = (index: number): 'stream' | 'poll' => ONLY_KIND ?? (index % 2 === 0 ? 'stream' : 'poll');
/** How many of its 5xx answers, and of its failed requests, each load generator prints. */
const ERRORS_SHOWN = 5;
/** How often each load generator reports its counts unasked. */
const REPORT_MS = 250;

/** The deterministic key of the bench's phone `i` (a base62 body of 40 characters). */
export const deviceKey = (i: number) => `dk_connbench${String(i).padStart(31, '0')}`;

type Errors = { status5xx: number; refused: number; other: number };
/** One load generator's counts; `reconnected`: phones connected again since the last mark. */
type Counts = { connected: number; reconnected: number; errors: Errors; last: string };

type ToClient =
  | { type: 'start'; port: number; first: number; count: number; spreadMs: number }
  | { type: 'counts'; id: number }
  | { type: 'mark'; id: number }
  | { type: 'watch'; id: number; index: number }
  | { type: 'unwatch'; index: number }
  | { type: 'delay'; id: number }
  | { type: 'stop' };
type FromClient =
  | ({ type: 'counts'; id?: number } & Counts)
  | { type: 'ack'; id: number }
  | { type: 'delay'; id: number; p99Ms: number; maxMs: number }
  | { type: 'heard'; index: number; at: number; state: string };

/** A moment every process reads alike: the wake-ups are heard in one process and sent from another. */
export const now = () => performance.timeOrigin + performance.now();

export type Fleet = {
  /** The counts of the last reports (at most REPORT_MS old). */
  connected: () => number;
  reconnected: () => number;
  errors: () => Errors;
  last: () => string;
  /** Fresh counts from every load generator. */
  refresh: () => Promise<void>;
  /** From now, `reconnected` counts the phones that connect again. */
  mark: () => Promise<void>;
  /**
   * The load generators' own event-loop delay since the last call (p99 and max of the worst of them): a
   * wake-up is stamped when a load generator's loop reads it, so their delay is part of every figure.
   */
  delay: () => Promise<{ p99Ms: number; maxMs: number }>;
  /** Resolves with when phone `index` hears of work (an event, or a claim answer with a message). */
  watch: (index: number) => Promise<{
    heard: Promise<number>;
    cancel: () => void;
    /** What the phone was doing when it was watched (its request open, or a wait before the next). */
    state: () => string;
  }>;
  stop: () => Promise<void>;
};

/** Starts ⌈count / PHONES_PER_CLIENT⌉ load generators, each opening its share of the phones. */
export function startFleet(port: number, count: number): Fleet {
  const processes = Math.max(1, Math.ceil(count / PHONES_PER_CLIENT));
  const per = Math.ceil(count / processes);
  // Phones come online at about 500 a second, as a fleet would, not in one tick.
  const spreadMs = count * 2;
  const latest: Counts[] = [];
  const waiting = new Map<number, (message: FromClient) => void>();
  const heard = new Map<number, (at: number) => void>();
  const states = new Map<number, string>();
  let ids = 0;
  const clients: ChildProcess[] = [];
  for (let c = 0; c < processes; c++) {
    const first = c * per;
    // Through tsx's loader, from the bench (itself under tsx) as from a test.
    const child = fork(import.meta.filename, [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    latest[c] = { connected: 0, reconnected: 0, errors: { status5xx: 0, refused: 0, other: 0 }, last: '' };
    child.on('message', (message: FromClient) => {
      if (message.type === 'counts') latest[c] = message;
      if (message.type === 'heard') {
        states.set(message.index, message.state);
        heard.get(message.index)?.(message.at);
        heard.delete(message.index);
      }
      if ('id' in message && message.id !== undefined) waiting.get(message.id)?.(message);
    });
    child.send({ type: 'start', port, first, count: Math.min(per, count - first), spreadMs } satisfies ToClient);
    clients.push(child);
  }
  const ask = (child: ChildProcess, message: ToClient & { id: number }) =>
    new Promise<FromClient>((resolve) => {
      waiting.set(message.id, (answer) => {
        waiting.delete(message.id);
        resolve(answer);
      });
      child.send(message);
    });
  const owner = (index: number) => clients[Math.floor(index / per)]!;
  const sum = (read: (counts: Counts) => number) => latest.reduce((total, counts) => total + read(counts), 0);
  return {
    connected: () => sum((counts) => counts.connected),
    reconnected: () => sum((counts) => counts.reconnected),
    errors: () => ({
      status5xx: sum((counts) => counts.errors.status5xx),
      refused: sum((counts) => counts.errors.refused),
      other: sum((counts) => counts.errors.other),
    }),
    last: () => latest.map((counts) => counts.last).find(Boolean) ?? '',
    refresh: async () => {
      await Promise.all(clients.map((child) => ask(child, { type: 'counts', id: ++ids })));
    },
    mark: async () => {
      await Promise.all(clients.map((child) => ask(child, { type: 'mark', id: ++ids })));
    },
    delay: async () => {
      const answers = await Promise.all(clients.map((child) => ask(child, { type: 'delay', id: ++ids })));
      const delays = answers.filter((answer) => answer.type === 'delay');
      return {
        p99Ms: Math.max(...delays.map((delay) => delay.p99Ms)),
        maxMs: Math.max(...delays.map((delay) => delay.maxMs)),
      };
    },
    watch: async (index) => {
      const promise = new Promise<number>((resolve) => heard.set(index, resolve));
      await ask(owner(index), { type: 'watch', id: ++ids, index });
      return {
        heard: promise,
        state: () => states.get(index) ?? '',
        cancel: () => {
          heard.delete(index);
          owner(index).send({ type: 'unwatch', index } satisfies ToClient);
        },
      };
    },
    stop: async () => {
      await Promise.all(
        clients.map(
          (child) =>
            new Promise((resolve) => {
              if (child.exitCode !== null) return resolve(undefined);
              child.once('exit', resolve);
              child.send({ type: 'stop' } satisfies ToClient);
            }),
        ),
      );
    },
  };
}

type Phone = {
  index: number;
  kind: 'stream' | 'poll';
  connected: boolean;
  connects: number;
  watched: boolean;
  /** When its open request began, or when its wait before the next one began (`retrying`). */
  since: number;
  retrying: boolean;
  /** What it was doing when it was watched (`state` of a heard message). */
  stateAtWatch: string;
};

/** In a load generator: opens its phones' connections and keeps them open (reconnecting as the app and the simulator do). */
function holdPhones(start: Extract<ToClient, { type: 'start' }>): void {
  const { port } = start;
  const send = (message: FromClient) => process.send?.(message);
  const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY, maxFreeSockets: 1_000_000 });
  let stopped = false;
  const errors: Errors = { status5xx: 0, refused: 0, other: 0 };
  let last = '';
  let connectsAtMark: number[] | undefined;
  const phones: Phone[] = Array.from({ length: start.count }, (_, i) => {
    const index = start.first + i;
    return {
      index,
      kind: kindOf(index),
      connected: false,
      connects: 0,
      watched: false,
      since: now(),
      retrying: false,
      stateAtWatch: '',
    };
  });
  const byIndex = (index: number) => phones[index - start.first];
  const counts = (id?: number): FromClient => ({
    type: 'counts',
    id,
    connected: phones.filter((phone) => phone.connected).length,
    reconnected: connectsAtMark
      ? phones.filter((phone, i) => phone.connected && phone.connects > connectsAtMark![i]!).length
      : 0,
    errors: { ...errors },
    last,
  });
  const hear = (phone: Phone) => {
    if (!phone.watched) return;
    phone.watched = false;
    send({ type: 'heard', index: phone.index, at: now(), state: phone.stateAtWatch });
  };
  const requests = new Set<http.ClientRequest>();
  /** After a failure: the app's 5 s → 30 s → 60 s, the simulator's 1-5 s, each with jitter. */
  const retryLater = (phone: Phone, run: () => void, retryAfterS?: number, exactMs?: number) => {
    phone.connected = false;
    phone.retrying = true;
    phone.since = now();
    if (stopped) return;
    // A server's `retry:` is followed as given (it is spread already); other waits get jitter here.
    if (exactMs !== undefined) return void setTimeout(run, exactMs);
    const base = retryAfterS !== undefined ? retryAfterS * 1000 : phone.kind === 'stream' ? 5_000 : 1_000;
    setTimeout(run, base + Math.random() * base);
  };
  const refusal = (what: string, status: number) => {
    last = what;
    if (status < 500) errors.refused++;
    // The first few 5xx as they came: the scenario's target on errors is about them.
    else if (errors.status5xx++ < ERRORS_SHOWN) console.log(`connections: ${what}`);
  };
  const failed = (phone: Phone, req: http.ClientRequest, run: () => void) => (error: Error) => {
    requests.delete(req);
    if (errors.other++ < ERRORS_SHOWN) console.log(`connections: ${phone.kind} ${String(error)}`);
    last = `${phone.kind} ${String(error)}`;
    retryLater(phone, run);
  };
  const openStream = (phone: Phone) => {
    if (stopped) return;
    phone.retrying = false;
    phone.since = now();
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/api/mobile/v1/events',
        method: 'GET',
        agent,
        headers: { authorization: `Bearer ${deviceKey(phone.index)}`, accept: 'text/event-stream' },
      },
      (res) => {
        if (res.statusCode !== 200) {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            if (body.length < 300) body += chunk;
          });
          const retry = Number(res.headers['retry-after']);
          res.on('end', () => {
            refusal(`stream ${res.statusCode} ${body.slice(0, 200)}`, res.statusCode ?? 0);
            retryLater(phone, () => openStream(phone), Number.isFinite(retry) ? retry : undefined);
          });
          return;
        }
        phone.connected = true;
        phone.connects++;
        let retryMs: number | undefined;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (chunk.includes('event: MessageEnqueued')) hear(phone);
          const retry = /retry: (\d+)/.exec(chunk);
          if (retry) retryMs = Number(retry[1]);
        });
        const ended = () => {
          requests.delete(req);
          if (!phone.connected) return;
          phone.connected = false;
          retryLater(phone, () => openStream(phone), undefined, retryMs);
        };
        res.on('end', ended);
        res.on('close', ended);
        res.on('error', () => {});
      },
    );
    requests.add(req);
    req.on(
      'error',
      failed(phone, req, () => openStream(phone)),
    );
    req.end();
  };
  const poll = (phone: Phone) => {
    if (stopped) return;
    phone.retrying = false;
    phone.since = now();
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: `/api/v1/device/outbox/claim?wait=${POLL_WAIT_S}`,
        method: 'POST',
        agent,
        headers: { 'x-api-key': deviceKey(phone.index), 'content-type': 'application/json' },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => {
          requests.delete(req);
          const status = res.statusCode ?? 0;
          if (status !== 200) {
            refusal(`poll ${status} ${body.slice(0, 200)}`, status);
            const retry = Number(res.headers['retry-after']);
            return retryLater(phone, () => poll(phone), Number.isFinite(retry) ? retry : undefined);
          }
          if (body.includes('"id"')) hear(phone);
          poll(phone);
        });
        res.on('error', () => {});
      },
    );
    requests.add(req);
    phone.connected = true;
    phone.connects++;
    req.on(
      'error',
      failed(phone, req, () => poll(phone)),
    );
    req.end('{"limit":1}');
  };
  for (const phone of phones) {
    setTimeout(() => (phone.kind === 'stream' ? openStream(phone) : poll(phone)), Math.random() * start.spreadMs);
  }
  const reporting = setInterval(() => send(counts()), REPORT_MS);
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  process.on('message', (message: ToClient) => {
    if (message.type === 'counts') send(counts(message.id));
    else if (message.type === 'mark') {
      connectsAtMark = phones.map((phone) => phone.connects);
      send(counts(message.id));
    } else if (message.type === 'watch' || message.type === 'unwatch') {
      const phone = byIndex(message.index);
      if (phone) phone.watched = message.type === 'watch';
      if (phone && message.type === 'watch') {
        const age = Math.round(now() - phone.since);
        phone.stateAtWatch = phone.retrying ? `waiting ${age} ms to retry` : `its request begun ${age} ms before`;
      }
      if (message.type === 'watch') send({ type: 'ack', id: message.id });
    } else if (message.type === 'delay') {
      const ms = (ns: number) => Math.round(ns / 1e5) / 10;
      send({ type: 'delay', id: message.id, p99Ms: ms(delay.percentile(99)), maxMs: ms(delay.max) });
      delay.reset();
    } else if (message.type === 'stop') {
      stopped = true;
      clearInterval(reporting);
      for (const req of requests) req.destroy();
      agent.destroy();
      process.exit(0);
    }
  });
}

if (import.meta.url === `file://${process.argv[1]}` && process.send) {
  process.once('message', (message: ToClient) => {
    if (message.type === 'start') holdPhones(message);
  });
}
