// The rules' check labels (ELICITATION-RULES §5, §9), verbatim: reports and baselines match on them,
// and an SDK author searching the rules for a label finds the check.

export const LABELS = {
  stepStatusCount: 'step status count',
  senderResponseCount: 'sender response count',
  invalidUploadDescriptor: 'invalid upload descriptor',
  uploadDescriptorIntegrity: 'upload descriptor integrity',
  receiverRefMutated: 'receiver ref mutated',
  invalidContentUploadEvidence: 'invalid content upload evidence',
  unexpectedContentUploadEvidence: 'unexpected content upload evidence',
  unknownContentUploadSource: 'unknown/duplicate content upload source',
  contentUploadDescriptorIntegrity: 'content upload descriptor integrity',
  unselectedContentUploadSource: 'unselected content upload source',
  receiverStartupTimedOut: 'receiver startup timed out',
  receiverStartupFailed: 'receiver startup failed',
  atomicHelperFailed: 'sender atomic helper failed',
  atomicResultCount: 'atomic result count',
  atomicMutatedInput: 'atomic staging mutated input',
  atomicAcceptanceMismatch: 'atomic staging acceptance mismatch',
  partialFailedResult: 'partial failed result published',
  atomicApplicationMismatch: 'atomic effect application mismatch',
  atomicProvenanceMismatch: 'atomic provenance mismatch',
  unauthenticatedAccessAccepted: 'unauthenticated access accepted',
  receiptsDiffer: 'exact receiver receipts differ (body bytes, payload, metadata, identity or completion)',
  badWireResponse: 'bad wire response',
} as const;

/** `<path> expected <n>, got <m>` (rules §9 item 4). */
export function statusLabel(path: string, expected: number, got: unknown): string {
  return `${path} expected ${expected}, got ${typeof got === 'number' ? got : JSON.stringify(got)}`;
}

/** The last `limit` characters of a process's stderr, as the rules quote them. */
export function stderrTail(text: string, limit: number): string {
  return text.length > limit ? text.slice(-limit) : text;
}
