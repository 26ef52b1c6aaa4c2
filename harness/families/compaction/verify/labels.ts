// The compaction verifier's vocabulary: the protocol runner's verbatim labels (COMPACTION-RULES
// §7–§9), the few of our own for what its runner cannot see (the stdio wire, a receiver's reply
// against its own config), and who a failure charges.

/** Who is at fault: the host/transport adapter, the receiver, or `either` when the evidence cannot tell. */
export type CompactionParty = 'sender' | 'receiver' | 'either';

export interface CompactionCheck {
  /** A label below: the rules' own words, or ours (marked). */
  label: string;
  party: CompactionParty;
  /** The rules' rendered detail (a tuple repr where the rules have one) and the evidence, in our words. */
  message: string;
}

export const LABEL = {
  caseCount: 'case count',
  bodies: 'inline text fabricated attachment bodies',
  instructions: 'instructions',
  generated: 'generated',
  applied: 'applied',
  failurePolicy: 'failure policy',
  messageLeak: 'staged message leak',
  summary: 'summary',
  downstream: 'downstream application',
  contentLeak: 'staged content leak',
  missingHooks: 'missing wire hooks',
  /** The rules' bare `require` default. */
  wire: 'wire validation failed',
  receiptCount: 'receiver receipt count',
  wireEvidence: 'receiver wire evidence',
  canonicalEvent: 'canonical compaction event',
  subscriptionIdentity: 'wire subscription identity',
  serial: 'serial wire bytes',
  unmatched: 'unmatched receiver receipts',
  rejectedRecorded: 'rejected request recorded as accepted',
  acceptedInvalid: 'receiver accepted invalid request',
  negativeSender: 'negative sender',
  startupTimeout: 'receiver startup timeout',
  startupFailed: 'receiver startup failed',
  hostTimeout: 'host timed out; process group terminated',
  host: 'host',
  // ours
  hostOutput: 'host output unreadable',
  receiptLog: 'receipt log unreadable',
  hookOrder: 'hook order',
  receiverReply: 'receiver reply not from its subscription config',
  stdioExtraOutput: 'stdio receiver wrote more than one reply line',
  stdioLeftover: 'host left a stdio receiver running',
  unsupportedProbe: 'sender has no compaction transport adapter',
} as const;
