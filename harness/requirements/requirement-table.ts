// Our own table of the protocol's requirement IDs: every ID the draft spec tags (its requirement
// list, the schemas' `x-requirements`, and the anchored statements of its current documents), the
// level it states, and what it asks for in one line of our own words. `npm run requirements --
// --check` fails when this table and the spec's list disagree (harness/requirements/spec-ids.ts).

export type RequirementLevel = 'MUST' | 'MUST NOT' | 'SHOULD' | 'SHOULD NOT' | 'MAY';

export interface Requirement {
  id: string;
  level: RequirementLevel;
  /** One line, our wording: what an implementation has to do. */
  summary: string;
}

export const REQUIREMENTS: readonly Requirement[] = [
  { id: 'AHP-CORE-001', level: 'MUST', summary: 'A claim of conformance states the role, every transport binding and every capability profile it covers.' },
  { id: 'AHP-CORE-002', level: 'MUST', summary: 'An implementation covers the base protocol plus at least one capability profile.' },
  { id: 'AHP-CORE-003', level: 'MUST', summary: 'Unknown object fields are ignored by receivers, and senders never use them to change core meaning.' },
  { id: 'AHP-CORE-004', level: 'MUST', summary: 'A resent event keeps its identities and content, and a backend copes with getting it twice.' },
  { id: 'AHP-RPC-001', level: 'MUST', summary: 'Every protocol message is JSON-RPC 2.0 encoded as UTF-8 JSON.' },
  { id: 'AHP-RPC-002', level: 'MUST', summary: 'Decisions travel as `hooks/intercept` requests, one-way observations as `hooks/observe` notifications.' },
  { id: 'AHP-VER-001', level: 'MUST', summary: 'Requests, notifications and successful results all carry `protocolVersion` (the v0.1 text fixes it to "0.1").' },
  { id: 'AHP-EXT-001', level: 'MUST', summary: 'Extension keys are reverse-DNS names, and core behaviour relies on one only when that is declared.' },
  { id: 'AHP-TB-001', level: 'MUST', summary: 'A `tool.before` event describes the pending tool call with the common event, session and tool fields.' },
  { id: 'AHP-CAP-001', level: 'MUST', summary: 'The host offers only effects it can enforce here, and the backend answers only with offered effects.' },
  { id: 'AHP-CAP-002', level: 'MUST', summary: 'Each intercept request lists `capabilities.effects`, with `deny` present for a tool-interception `tool.before`.' },
  { id: 'AHP-DEC-001', level: 'MUST', summary: 'A successful intercept result holds no effects at all or exactly one valid `deny`.' },
  { id: 'AHP-DEC-002', level: 'MUST', summary: 'Once the host accepts a valid `deny`, the operation it describes does not run.' },
  { id: 'AHP-DEC-003', level: 'MUST NOT', summary: 'An empty effect list grants nothing: it never skips the host permissions, sandbox or approval.' },
  { id: 'AHP-EDIT-001', level: 'MUST', summary: 'Modifications stay inside the advertised target and operation, replace or merge as defined, apply in order, and the response is accepted whole or not at all.' },
  { id: 'AHP-COMP-001', level: 'MUST', summary: 'Matching interceptors run one after another in registration order, stopping at a denial or a fail-closed failure.' },
  { id: 'AHP-FAIL-001', level: 'MUST', summary: 'Every intercept subscription names `fail-open` or `fail-closed`, and the host applies it to operational failures.' },
  { id: 'AHP-FAIL-002', level: 'MUST', summary: 'The host enforces each interception deadline, and retries stay within the first deadline.' },
  { id: 'AHP-STDIO-001', level: 'MUST', summary: 'Over stdio each JSON-RPC object is one UTF-8 line on stdout, and diagnostics stay off stdout.' },
  { id: 'AHP-HTTP-001', level: 'MUST', summary: 'Over HTTP each POST carries one JSON-RPC object as JSON and gets at most one JSON-RPC response back.' },
  { id: 'AHP-REG-001', level: 'MUST', summary: 'A portable registration document states protocol version "0.1" and a non-empty, ordered `hooks` list.' },
  { id: 'AHP-REG-002', level: 'MUST', summary: 'An event goes to a backend only through a subscription naming that exact event with the matching mode.' },
  { id: 'AHP-SEC-001', level: 'MUST NOT', summary: 'The protocol never loosens host authorization; a result without effects only means nobody denied.' },
  { id: 'AHP-CONTENT-001', level: 'MUST', summary: 'Content shown to a model uses canonical roles and ordered parts: text inline, structure serialised as text, no JSON parts.' },
  { id: 'AHP-CONTENT-002', level: 'MUST', summary: 'Authorization and body/metadata/omit selection cover inline text and attachments alike; only immutable binary media go through uploads.' },
];

/** The table by ID. */
export const REQUIREMENTS_BY_ID: ReadonlyMap<string, Requirement> = new Map(REQUIREMENTS.map((entry) => [entry.id, entry]));
