// The semantic lint's rules that judge one message on its own: a `hooks/intercept` request or a
// `hooks/observe` notification as a client sends it. Pure and cheap (no schema compilation), so the
// reference adapter's clients run it before every send and its receivers on every arrival. Rules
// that need several messages (uniqueness, one snapshot per file, chain identity) live in
// scenario-file-lint.ts.

import { isJsonObject, type JsonObject } from '../json.ts';
import { indexPath, joinPath } from '../../scenarios/json-path.ts';
import { CORE_EFFECTS, REVERSE_DNS, SEMANTIC_RULES, type SemanticRuleId } from './rules.ts';

/** One broken rule at one JSON path (relative to whatever `at` the caller passed). */
export interface MessageProblem {
  path: string;
  rule: SemanticRuleId;
  message: string;
}

export type SentKind = 'intercept' | 'observe';

const SNAPSHOT = /^(?:draft|\d{4}-\d{2}-\d{2})$/;

type Report = (path: string, rule: SemanticRuleId, message: string) => void;

function collector(): { problems: MessageProblem[]; report: Report } {
  const problems: MessageProblem[] = [];
  return { problems, report: (path, rule, message) => problems.push({ path, rule, message }) };
}

const show = (value: unknown): string => (value === undefined ? 'nothing' : JSON.stringify(value)?.slice(0, 120) ?? String(value));

/** Every problem of `message` as a message of `kind` a client sends; `at` prefixes every path. */
export function lintSentMessage(message: unknown, kind: SentKind, at = ''): MessageProblem[] {
  const { problems, report } = collector();
  if (!isJsonObject(message)) {
    report(at, SEMANTIC_RULES.jsonRpcObject.id, `expected one JSON-RPC object, got ${Array.isArray(message) ? 'a batch array' : show(message)}`);
    return problems;
  }
  if (message.jsonrpc !== '2.0') report(joinPath(at, 'jsonrpc'), SEMANTIC_RULES.jsonRpcObject.id, `expected "2.0", got ${show(message.jsonrpc)}`);
  const method = kind === 'intercept' ? 'hooks/intercept' : 'hooks/observe';
  if (message.method !== method) report(joinPath(at, 'method'), SEMANTIC_RULES.requestOrNotification.id, `expected ${JSON.stringify(method)}, got ${show(message.method)}`);
  if (kind === 'intercept' && typeof message.id !== 'string' && typeof message.id !== 'number') {
    report(joinPath(at, 'id'), SEMANTIC_RULES.requestOrNotification.id, `a hooks/intercept request needs a string or number id, got ${show(message.id)}`);
  }
  if (kind === 'observe' && Object.prototype.hasOwnProperty.call(message, 'id')) {
    report(joinPath(at, 'id'), SEMANTIC_RULES.requestOrNotification.id, `a hooks/observe notification has no JSON-RPC id, got ${show(message.id)}`);
  }

  const paramsAt = joinPath(at, 'params');
  const params = message.params;
  if (!isJsonObject(params)) {
    report(paramsAt, SEMANTIC_RULES.protocolVersion.id, `expected a params object carrying protocolVersion, got ${show(params)}`);
    return problems;
  }
  if (typeof params.protocolVersion !== 'string' || !SNAPSHOT.test(params.protocolVersion)) {
    report(joinPath(paramsAt, 'protocolVersion'), SEMANTIC_RULES.protocolVersion.id, `expected a snapshot identifier ("draft" or YYYY-MM-DD), got ${show(params.protocolVersion)}`);
  }
  extensionKeyProblems(params.extensions, joinPath(paramsAt, 'extensions'), report);

  const eventAt = joinPath(paramsAt, 'event');
  const event = params.event;
  if (kind === 'intercept') {
    const eventId = isJsonObject(event) ? event.id : undefined;
    if (eventId !== message.id) {
      report(joinPath(eventAt, 'id'), SEMANTIC_RULES.idEqualsEventId.id, `expected the request's JSON-RPC id ${show(message.id)}, got ${show(eventId)}`);
    }
    capabilityProblems(params.capabilities, joinPath(paramsAt, 'capabilities'), report);
  }
  if (isJsonObject(event)) {
    sourceProblems(event.source, joinPath(eventAt, 'source'), report);
    extensionKeyProblems(event.extensions, joinPath(eventAt, 'extensions'), report);
    if (Array.isArray(event.items)) problems.push(...lintContentItems(event.items, joinPath(eventAt, 'items')));
  }
  return problems;
}

/** Problems of a canonical content list (messages with `parts`, or bare parts), e.g. `event.items`. */
export function lintContentItems(items: readonly unknown[], at: string): MessageProblem[] {
  const { problems, report } = collector();
  items.forEach((item, i) => {
    const itemAt = indexPath(at, i);
    if (!isJsonObject(item)) return;
    contentPartProblems(item, itemAt, report);
    if (Array.isArray(item.parts)) item.parts.forEach((part, j) => isJsonObject(part) && contentPartProblems(part, indexPath(joinPath(itemAt, 'parts'), j), report));
  });
  return problems;
}

function contentPartProblems(part: JsonObject, at: string, report: Report): void {
  if (part.kind === 'attachment' && typeof part.mediaType === 'string') {
    const type = part.mediaType.toLowerCase().split(';')[0]!.trim();
    if (type.startsWith('text/') || type === 'application/json' || type.endsWith('+json')) {
      report(joinPath(at, 'mediaType'), SEMANTIC_RULES.attachmentMediaType.id, `an attachment may not be text or JSON (it stays inline as text), got ${show(part.mediaType)}`);
    }
  }
  if (part.selection === 'metadata' || part.selection === 'omit') {
    for (const key of ['text', 'body']) {
      if (Object.prototype.hasOwnProperty.call(part, key)) {
        report(joinPath(at, key), SEMANTIC_RULES.selectionWithoutContent.id, `a part selected as ${JSON.stringify(part.selection)} carries no ${key}`);
      }
    }
  }
}

function extensionKeyProblems(extensions: unknown, at: string, report: Report): void {
  if (!isJsonObject(extensions)) return;
  for (const key of Object.keys(extensions)) {
    if (!REVERSE_DNS.test(key)) report(joinPath(at, key), SEMANTIC_RULES.extensionKeys.id, `expected a reverse-DNS extension key such as "com.example.policy", got ${JSON.stringify(key)}`);
  }
}

// Secret-shaped fragments: what a leaked bearer token, JWT or cloud/API key looks like in a URI.
const SECRET_QUERY_NAME = /(?:token|secret|passw(?:or)?d|pwd|api[-_]?key|credential|signature|^sig$|^auth)/i;
const SECRET_VALUE = /eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.|\bBearer\s|(?:^|[^A-Za-z0-9])(?:sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|xox[abpr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16})/;

function sourceProblems(source: unknown, at: string, report: Report): void {
  if (typeof source !== 'string') return;
  const reason = secretInSource(source);
  if (reason !== undefined) report(at, SEMANTIC_RULES.sourceNotSecret.id, `event.source must not carry secrets, but ${reason}`);
}

/** Why `source` looks like it carries a credential, or undefined. */
export function secretInSource(source: string): string | undefined {
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*@/.test(source)) return 'it has URI user info (user[:password]@)';
  const query = source.split('#')[0]!.split('?')[1];
  if (query !== undefined) {
    for (const pair of query.split('&')) {
      const name = decodeURIComponentSafe(pair.split('=')[0] ?? '');
      if (SECRET_QUERY_NAME.test(name)) return `its query has the secret-named parameter ${JSON.stringify(name)}`;
    }
  }
  if (SECRET_VALUE.test(source)) return 'it contains a token-shaped value';
  return undefined;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function capabilityProblems(capabilities: unknown, at: string, report: Report): void {
  const effectsAt = joinPath(at, 'effects');
  const effects = isJsonObject(capabilities) ? capabilities.effects : undefined;
  if (!isJsonObject(capabilities) || !Array.isArray(effects) || !effects.every((e) => typeof e === 'string')) {
    report(effectsAt, SEMANTIC_RULES.capabilitiesEffects.id, `expected an array of effect names, got ${show(effects)}`);
    return;
  }
  effects.forEach((effect, i) => {
    if (!CORE_EFFECTS.has(effect as string) && !REVERSE_DNS.test(effect as string)) {
      report(indexPath(effectsAt, i), SEMANTIC_RULES.experimentalEffects.id, `${JSON.stringify(effect)} is not a core effect, so it must be a reverse-DNS name`);
    }
  });
  const rule = SEMANTIC_RULES.optionBlocksMatchEffects.id;
  for (const block of ['modify', 'flow', 'inject'] as const) {
    const advertised = effects.includes(block);
    const present = capabilities[block] !== undefined;
    if (advertised && !present) report(joinPath(at, block), rule, `the ${block} effect is advertised, so its ${block} option block is required`);
    if (!advertised && present) report(joinPath(at, block), rule, `a ${block} option block without the ${block} effect in capabilities.effects`);
  }
  const modify = capabilities.modify;
  if (isJsonObject(modify)) {
    if (Object.keys(modify).length === 0) report(joinPath(at, 'modify'), rule, 'an empty modify target set');
    for (const [target, ops] of Object.entries(modify)) {
      if (!isJsonObject(ops) || (ops.replace !== true && ops.merge !== true)) {
        report(joinPath(joinPath(at, 'modify'), target), rule, `advertised modify target ${JSON.stringify(target)} enables neither replace nor merge`);
      }
    }
  }
  const flow = capabilities.flow;
  if (isJsonObject(flow) && (!Array.isArray(flow.operations) || flow.operations.length === 0)) {
    report(joinPath(joinPath(at, 'flow'), 'operations'), rule, `expected at least one flow operation, got ${show(flow.operations)}`);
  }
  const inject = capabilities.inject;
  if (isJsonObject(inject)) {
    if (Object.keys(inject).length === 0) report(joinPath(at, 'inject'), rule, 'an empty inject target set');
    for (const [target, options] of Object.entries(inject)) {
      const deliverAt = isJsonObject(options) ? options.deliverAt : undefined;
      if (!Array.isArray(deliverAt) || deliverAt.length === 0) {
        report(joinPath(joinPath(joinPath(at, 'inject'), target), 'deliverAt'), rule, `expected at least one delivery choice, got ${show(deliverAt)}`);
      }
    }
  }
}
