// The lifecycle verifier's failure labels. They are the protocol runner's own words
// (LIFECYCLE-RULES §7), kept verbatim so that a failure here reads the same as upstream's and can be
// matched against it; the `message` of a check carries our own explanation. The §7 number of the
// check that uses each label is given beside it.

export const LABEL = {
  // §7.1 report
  wrongReport: 'wrong report language/type', // (2)
  malformedResults: 'malformed results', // (3)
  resultIds: 'result IDs must match scenarios exactly once', // (4)
  notAPass: 'unsupported/inapplicable/failed result is not a pass', // (5)
  malformedReceipts: 'missing/malformed receiver receipts', // (7)
  unknownKind: 'unknown receipt kind', // (8)

  // §7.2 multiplicity and control proofs
  receivedMultiplicity: 'received: exact attempt multiplicity mismatch', // (9)
  repliedMultiplicity: 'replied: exact attempt multiplicity mismatch', // (9)
  acceptedMilestone: 'accepted: milestone mismatch', // (11)
  cancelledMilestone: 'cancelled: milestone mismatch', // (11)
  strayRendezvous: 'stray discard lacks reader rendezvous', // (13)

  // §7.3 content upload confirmations
  malformedConfirmations: 'malformed content upload confirmations', // (14)
  malformedConfirmation: 'malformed content upload confirmation', // (15)
  deliveryIdentity: 'content upload delivery identity mismatch', // (16)
  priorConfirmation: 'content upload lacks exact prior receiver confirmation', // (17)

  // §7.4 uploads
  uploadMultiplicity: 'upload multiplicity mismatch', // (18)
  uploadEvidence: 'upload integrity/authorization evidence mismatch', // (19)
  missingUploadRef: 'missing receiver-assigned upload reference', // (20)
  reusedRef: 'receiver reused immutable reference for changed bytes', // (21), (22)
  sourceIntegrity: 'unknown/duplicate source or content upload integrity mismatch', // (22)
  sourceSelection: 'content upload source not selected exactly once in delivery', // (22)

  // §7.5 requests
  requestMismatch: 'received canonical request mismatch', // (23)
  interceptBeforeUpload: 'intercept dispatched before authorized exact upload readiness', // (24)

  // §7.6 observations
  observationMismatch: 'settled observation payload/identity/subscription mismatch', // (25)
  observationParamsMissing: 'observation params missing', // (25)

  // §7.7 order
  acquisitionBeforeResponse: 'acquisition before response', // (26)
  acceptanceBeforeAcquired: 'acceptance before acquired response', // (27)
  observationBeforeSettlement: 'observation before settlement', // (28)
  observationBeforePlannedCancel: 'observation dispatched before planned cancellation', // (28)
  bodyBeforeUpload: 'body dispatched before authorized exact upload readiness', // (28)
  cancelNotRendezvoused: 'cancel not rendezvoused after receipt', // (29)
  cancelLacksAcquisition: 'cancel-after-reply lacks acquisition proof', // (29)
  cancelBarrier: 'cancel/reply barrier order violated', // (29)
  strayNotLive: 'stray frame did not rendezvous while live request pending', // (30)
  oldReplyRace: 'old reply did not race next pending request', // (31)

  // §7.8 chains
  chainClient: 'chain client failed or wrong language',
  chainResultMultiplicity: 'chain result multiplicity',
  chainNotAPass: 'chain failed or skipped result',
  unknownChainReceipt: 'unknown chain receipt',
  chainIntercept: 'chain intercept selection/effective request mismatch',
  chainObservation: 'chain automatic downgrade/permission/effective view mismatch',
  chainReceiptWire: 'chain receipt differs from exact wire notification',
  chainMilestoneScenario: 'chain milestone scenario mismatch',
  blockedObserverProof: 'missing post-stop blocked observer proof',
  unexpectedObserverGate: 'unexpected observer gate',
  chainResponseOrder: 'chain response multiplicity/order',
  observationBeforeChainSettlement: 'observation before chain settlement',
  notSerial: 'interceptors were not serial',
  interruptionWaited: 'interruption waited for pending request',
  interruptionObserved: 'interruption initiated observation work',
  unexpectedInterruption: 'unexpected chain interruption',
  settledBeforeResponse: 'chain settled before response',
} as const;

/** §7.1 (1) (and the catalogue's (1)): the client's exit code is part of the label. */
export const clientExitLabel = (code: number | null): string => `client exit ${code === null ? 'null' : code}`;
/** The message beside clientExitLabel: why this exit fails the run; undefined for exit 0. */
export const clientExitProblem = (code: number | null): string | undefined =>
  code === 0 ? undefined : code === null ? 'the client ended without an exit code (signal or watchdog)' : `the client exited ${code}`;
/** §7.1 (6), keyed by scenario id. */
export const localMismatchLabel = (scenarioId: string): string => `${scenarioId}: local application result mismatch`;
/** §7.2 (10), keyed by request id. */
export const replyBeforeReceiptLabel = (requestId: string): string => `${requestId}: reply before receipt`;
/** §7.2 (12), for `acquired`, `emitted` and `discarded`. */
export const controlProofLabel = (kind: 'acquired' | 'emitted' | 'discarded'): string => `${kind}: control proof mismatch`;
/** §7.8, keyed by scenario id. */
export const chainMismatchLabel = (scenarioId: string): string => `${scenarioId}: chain local result mismatch`;
