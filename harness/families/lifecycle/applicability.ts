// Which rows run on which transport (LIFECYCLE-RULES §8). A row without `transports` runs on both;
// an excluded row never reaches an adapter and is listed with the reason instead.

import type { Transport } from '../../config/define-config.ts';
import type { ScenarioRowBase } from '../../lifecycle-adapters/scenario-types.ts';

/** The part of a row applicability reads (lifecycle and catalogue rows alike). */
export type TransportScoped = Pick<ScenarioRowBase, 'id' | 'transports' | 'inapplicableReason'>;

/** An excluded row as a group lists it. */
export interface InapplicableScenario {
  id: string;
  status: 'inapplicable';
  transport: Transport;
  reason: string;
}

/** Why `row` does not run on `transport`, or `undefined` when it does. */
export function inapplicabilityReason(row: TransportScoped, transport: Transport): string | undefined {
  if (row.transports === undefined || row.transports.includes(transport)) return undefined;
  return row.inapplicableReason ?? `scenario requires ${row.transports.join('/')} transport`;
}

/** The rows that run on `transport` (in file order) and the excluded ones with their reasons. */
export function splitByTransport<Row extends TransportScoped>(
  rows: readonly Row[],
  transport: Transport,
): { applicable: Row[]; inapplicable: InapplicableScenario[] } {
  const applicable: Row[] = [];
  const inapplicable: InapplicableScenario[] = [];
  for (const row of rows) {
    const reason = inapplicabilityReason(row, transport);
    if (reason === undefined) applicable.push(row);
    else inapplicable.push({ id: row.id, status: 'inapplicable', transport, reason });
  }
  return { applicable, inapplicable };
}
