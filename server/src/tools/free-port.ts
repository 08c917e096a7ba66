// A port for a server whose URL goes into its configuration before it binds (the test harness, the benches).
import fs from 'node:fs';
import net from 'node:net';

/** Ports this process has handed out; each is given once. */
const handedOut = new Set<number>();

/**
 * A port nothing listens on, for a server that binds it later (its URL goes into its configuration first).
 * Drawn below the kernel's ephemeral range: a port the kernel hands out (port 0) can be taken, before the
 * server binds it, as the local end of any outgoing connection (the suites open thousands to MySQL), which
 * failed a clean-clone CI with EADDRINUSE. Drawn at random, so parallel test workers and benches rarely meet.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  for (let tries = 0; tries < 50; tries++) {
    const port = 20000 + Math.floor(Math.random() * Math.max(1, low - 20000));
    if (handedOut.has(port)) continue;
    if (await bindable(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port between 20000 and ${low}`);
}

function ephemeralLow(): number {
  try {
    const low = Number(
      fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
    );
    return low > 21000 ? low : 32768;
  } catch {
    return 32768;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}
