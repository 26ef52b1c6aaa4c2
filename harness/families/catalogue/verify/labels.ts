// The catalogue verifier's failure labels: the protocol runner's own words (CATALOGUE-RULES §6), kept
// verbatim so that a failure here reads the same as upstream's; the `message` of a check carries our
// own explanation. The §6 number of the check that uses each label is given beside it. Check (1)'s
// label, `client exit <code>`, is the lifecycle runner's too (lifecycle/labels.ts clientExitLabel).
// Check (8) has no fixed label: its labels are the schema errors themselves (schemaErrorLabel).

export const CATALOGUE_LABEL = {
  wrongReport: 'wrong report language/type', // (2)
  malformedResults: 'malformed results', // (3)
  resultIds: 'result IDs must match exactly once', // (4)
  missingReceipts: 'missing receiver receipts', // (6)
  discoveryCount: 'exactly one real discovery required', // (7)
  discoveryDiffers: 'client discovery differs from actual response', // (9)
  discoveryCorrelation: 'discovery correlation mismatch', // (10)
  observationNotAdvertised: 'catalogue observation support not advertised', // (11)
  hookFailureAdvertised: 'catalogue fixture requires hook.failure unsupported', // (11)
  scopes: 'catalogue fixture requires user/project scopes only', // (11)
  observationParamsMissing: 'observation params missing', // (12)
  evidenceMismatch: 'exact actual receiver delivery/rejection evidence mismatch', // (13)
} as const;

/** (5), keyed by scenario id. */
export const notPassedLabel = (scenarioId: string): string => `${scenarioId}: not passed`;
/** (5), keyed by scenario id. */
export const resultMismatchLabel = (scenarioId: string): string => `${scenarioId}: actual wire/registration result mismatch`;

/**
 * (8) and (12): one schema error as a label, `$.<path>: <what failed>` — the upstream form (e.g.
 * `$.result: missing required property 'protocolVersion'`) with our validator's wording of what failed.
 */
export function schemaErrorLabel(error: string): string {
  const match = /^(\(root\)|\/[^:]*): (.*?)(?: \[[^\]]*\])?$/.exec(error);
  if (match === null) return error;
  const pointer = match[1] === '(root)' ? '' : match[1]!;
  const path = pointer
    .split('/')
    .slice(1)
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join('');
  return `$${path}: ${match[2]}`;
}
