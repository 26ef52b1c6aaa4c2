// The lifecycle family receiver's three listeners, all on 127.0.0.1 port 0 — control, upload and
// (HTTP transport only) event — and its readiness file `{endpoint, controlEndpoint, uploadEndpoint,
// pid}`, written atomically once every one of them listens (`endpoint` is null over stdio). Each
// listener joins `servers` before it listens, so shutdown closes whatever is up.

import type { Server } from 'node:http';

import { writeJsonAtomic } from '../lib/atomic-write.ts';
import type { AhpHttpServer } from '../lib/http-binding.ts';
import { listen } from '../lib/process-main.ts';
import { UPLOAD_PATH } from './upload-receiver.ts';

export interface ReceiverListeners {
  control: Server;
  upload: Server;
  /** Made only over HTTP. */
  events: (() => AhpHttpServer) | undefined;
}

export async function listenAndAnnounce(listeners: ReceiverListeners, servers: Server[], readinessFile: string): Promise<void> {
  servers.push(listeners.control, listeners.upload);
  const controlEndpoint = await listen(listeners.control);
  const uploadEndpoint = `${await listen(listeners.upload)}${UPLOAD_PATH}`;
  let endpoint: string | null = null;
  if (listeners.events !== undefined) {
    const events = listeners.events();
    servers.push(events.server);
    endpoint = await listen(events.server, events.scheme);
  }
  await writeJsonAtomic(readinessFile, { endpoint, controlEndpoint, uploadEndpoint, pid: process.pid });
}
