// The ports tests and benches give a service before it binds (freePort): below the kernel's ephemeral range, where
// no outgoing connection can take one in the meantime (the EADDRINUSE that failed a clean-clone CI), free when
// handed out, and never the same twice in one process.
import fs from 'node:fs';
import net from 'node:net';
import { expect, it } from 'vitest';
import { freePort } from '../../server/src/tools/free-port';

it('hands out free ports below the ephemeral range, each once', async () => {
  const [low] = fs
    .readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
    .trim()
    .split(/\s+/)
    .map(Number);
  const ports: number[] = [];
  for (let i = 0; i < 40; i++) ports.push(await freePort());
  expect(new Set(ports).size).toBe(ports.length);
  for (const p of ports) {
    expect(p).toBeGreaterThanOrEqual(20000);
    expect(p).toBeLessThan(low as number);
  }
  // each binds: nothing held it when it was handed out
  const port = await freePort();
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  await new Promise((resolve) => server.close(resolve));
});
