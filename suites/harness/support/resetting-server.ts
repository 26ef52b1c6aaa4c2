// A loopback HTTP server that closes connections the way an idle timeout does at the wrong moment:
// `resets(url, nth)` decides, for the nth request on its connection, whether the connection is
// destroyed unanswered. Every arrival is recorded; the rest are answered 200 with `body`.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ResettingServer {
  origin: string;
  /** Every request as it arrived: its URL and its position on its connection (1 = a fresh one). */
  arrivals: Array<{ url: string; nth: number }>;
  close(): Promise<void>;
}

export async function startResettingServer(resets: (url: string, nth: number) => boolean, body: string): Promise<ResettingServer> {
  const arrivals: Array<{ url: string; nth: number }> = [];
  const counts = new WeakMap<object, number>();
  const server: Server = createServer((request, response) => {
    const nth = (counts.get(request.socket) ?? 0) + 1;
    counts.set(request.socket, nth);
    const url = request.url ?? '';
    arrivals.push({ url, nth });
    request.resume();
    if (resets(url, nth)) return void request.socket.destroy();
    response.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
