import net from 'node:net';

/**
 * A port on 127.0.0.1 that nothing listens on now, as the system hands out for port 0: for the
 * servers the benchmark and the tests start. A random port from a fixed range was not safe here:
 * it could land on a service of the machine (MariaDB's 3306, NATS's 4222).
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
