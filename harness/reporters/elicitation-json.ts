// The elicitation family's `reports/elicitation.json` in the shape the protocol's elicitation runner writes (ELICITATION-RULES
// §11): one row per directed pair, `passed`/`total` over the pairs. A pass row carries the pair's
// counts as the run measured them (a selection of cases counts only what it ran). Our pairs do not
// stop at their first failure, so a failed row's `error` is its first failing check and `errors`
// lists every check that failed, with the cases they failed in.

/** The part of the matrix reporter's group record this shape reads. */
export interface ElicitationGroupInput {
  client: string;
  server: string;
  status: string;
  errors: string[];
  results: ReadonlyArray<{ id: string; status: string; adapterStatus: string; errors: string[]; skipReason?: string; details?: Record<string, unknown> }>;
}

/** The counts a pair run reports with its rows (RowOutcome.details.pair). */
export interface PairCounts {
  scenarios: number;
  concurrentRequests: number;
  atomicPublications: number;
  wireOperations: number;
  acceptedReceipts: number;
}

export function elicitationJson(groups: readonly ElicitationGroupInput[]): unknown {
  const results = groups.map((group) => {
    // The matrix group's client is the sender, its server the receiver.
    const pair = { sender: group.client, receiver: group.server };
    if (group.status === 'unsupported' || group.status === 'inapplicable' || group.status === 'skipped') {
      return { ...pair, status: group.status, reason: group.results[0]?.skipReason ?? group.status };
    }
    const details = group.results.map((row) => row.details).find((one) => one !== undefined) ?? {};
    const notes = Array.isArray(details.commandNotes) ? { notes: details.commandNotes } : {};
    if (group.status === 'passed') return { ...pair, status: 'passed', ...countsOf(details.pair), ...notes };
    const failed = group.results.filter((row) => row.status === 'failed');
    return {
      ...pair,
      status: 'failed',
      error: failed[0]?.errors[0] ?? group.errors[0] ?? 'failed',
      errors: group.errors,
      failedCases: failed.map((row) => ({ id: row.id, errors: row.errors })),
      ...notes,
    };
  });
  return {
    transport: 'http',
    authentication: 'bearer',
    offline: true,
    results,
    passed: results.filter((row) => row.status === 'passed').length,
    total: results.filter((row) => row.status === 'passed' || row.status === 'failed').length,
  };
}

function countsOf(value: unknown): Partial<PairCounts> {
  if (typeof value !== 'object' || value === null) return {};
  const counts = value as Record<string, unknown>;
  const out: Partial<PairCounts> = {};
  for (const key of ['scenarios', 'concurrentRequests', 'atomicPublications', 'wireOperations', 'acceptedReceipts'] as const) {
    if (typeof counts[key] === 'number') out[key] = counts[key];
  }
  return out;
}
