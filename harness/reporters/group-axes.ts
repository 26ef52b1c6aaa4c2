// A matrix group's place on the matrix's axes, as every report of a group states it (the matrix
// summary and the HTML page build their groups from the same row meta).

import type { MatrixRowMeta } from '../setup/grouped-suite.ts';

export type GroupAxes = Pick<MatrixRowMeta, 'client' | 'server' | 'transport' | 'auth'>;

export function groupAxes(meta: MatrixRowMeta): GroupAxes {
  return { client: meta.client, server: meta.server, transport: meta.transport, auth: meta.auth };
}
