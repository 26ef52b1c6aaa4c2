// The lifecycle verifier's observation chain checks (LIFECYCLE-RULES §7.8) against §11's "Chains
// reject" and "Chains accept" lists, plus every other §7.8 label. Each test breaks an honest run of
// every canonical row in one way and asserts the label lands on exactly the chain it touched. The
// §7.0 split is exercised throughout: step scripts run in the same log and must stay clean.

import path from 'node:path';

import { describe, expect, test } from 'vitest';

import { loadLifecycleScenarioFileSync } from '../../harness/families/lifecycle/load-lifecycle-scenarios.ts';
import type { ChainScenario, LifecycleScenario } from '../../harness/lifecycle-adapters/scenario-types.ts';
import { canonicalInteropFile } from '../../harness/protocol/canonical-interop.ts';
import { cloneJson, type JsonObject } from '../../harness/protocol/json.ts';
import { PROJECT_ROOT } from '../../harness/protocol/load-validators.ts';
import {
  CANONICAL_ROWS,
  CANONICAL_SKIP,
  canonicalRow,
  entryAt,
  entryIndex,
  eventIn,
  expectClean,
  expectOnRow,
  expectOnRun,
  honestCase,
  labels,
  moveAfter,
  moveBefore,
  resultOf,
  verify,
  type RunCase,
} from './support/lifecycle-verify-cases.ts';

const rows = CANONICAL_ROWS ?? [];
const http = (): RunCase => honestCase(rows, 'http');
const DENY = 'observation-chain-deny';
const CONTINUE = 'observation-chain-continue';
const FAIL_OPEN = 'observation-chain-fail-open';
const INTERRUPT = 'observation-chain-interrupt';

/** The deny chain's observation with the omit view (`items: []`), and the original request items. */
function omitView(c: RunCase): { observed: JsonObject; original: JsonObject[] } {
  const observed = c.entries.find((e) => e.kind === 'observed' && e.eventId === DENY && (eventIn(e).items as JsonObject[]).length === 0);
  if (observed === undefined) throw new Error('no omit view');
  return { observed, original: canonicalRow(DENY).requests.a!.params.event.items as JsonObject[] };
}

/** Sets an observation's items on the wire message and in the receipt's `event` alike. */
function setItems(observed: JsonObject, items: JsonObject[]): void {
  eventIn(observed).items = items;
  observed.event = cloneJson(eventIn(observed));
}

const explicitOmit = (items: JsonObject[]): JsonObject[] => items.map(({ body: _b, gap: _g, ...rest }) => ({ ...rest, selection: 'omit' }));

/**
 * The fake client of issue 17: it sends every empty chain view — intercept calls and observations
 * alike — in the explicit omit form of its row's original items (what the SDK clients send), and the
 * receiver records exactly that. Returns how many messages it rewrote, so a test cannot pass vacuously.
 */
function sendExplicitOmitViews(c: RunCase, edit: (items: JsonObject[]) => JsonObject[] = (items) => items): number {
  let rewritten = 0;
  for (const entry of c.entries) {
    if (entry.kind !== 'received' && entry.kind !== 'observed') continue;
    const event = eventIn(entry);
    const row = chainOfEvent(c, event.id);
    const original = row?.requests.a?.params.event.items as JsonObject[] | undefined;
    if (original === undefined || original.length === 0 || (event.items as JsonObject[]).length > 0) continue;
    event.items = edit(explicitOmit(original));
    if (entry.kind === 'observed') entry.event = cloneJson(event);
    rewritten++;
  }
  return rewritten;
}

/** The chain row of `c` whose request carries event id `eventId`. */
function chainOfEvent(c: RunCase, eventId: unknown): ChainScenario | undefined {
  return c.rows.find((row): row is ChainScenario => row.chain !== undefined && row.requests.a?.params.event.id === eventId);
}

/** The first intercept call of the chains in `c` whose view is empty, and its row. */
function emptyInterceptCall(c: RunCase): { entry: JsonObject; row: ChainScenario } {
  for (const entry of c.entries) {
    const row = entry.kind === 'received' ? chainOfEvent(c, eventIn(entry).id) : undefined;
    if (row !== undefined && (eventIn(entry).items as JsonObject[]).length === 0) return { entry, row };
  }
  throw new Error('no chain intercept call with an empty view');
}

const OWN_CHAIN_ROWS = loadLifecycleScenarioFileSync(path.join(PROJECT_ROOT, 'fixtures', 'lifecycle-scenarios.json')).scenarios.filter((row) => row.chain !== undefined);

describe.skipIf(CANONICAL_ROWS === undefined)(CANONICAL_ROWS ? '§7.8 chains' : `§7.8 chains (${CANONICAL_SKIP})`, () => {
  describe('§11 Chains reject', () => {
    test('no entries', () => {
      const c = honestCase(rows.filter((r) => r.chain !== undefined), 'http');
      c.entries.splice(0);
      const found = labels(verify(c));
      expect(found.run).toEqual([]);
      expect(Object.keys(found.rows).sort()).toEqual(c.rows.map((r) => r.id).sort());
      for (const checks of Object.values(found.rows)) expect(checks).toContain('observation before chain settlement');
      expect(found.rows[DENY]).toEqual(['chain intercept selection/effective request mismatch', 'chain automatic downgrade/permission/effective view mismatch', 'observation before chain settlement']);
    });

    test('an observation removed', () => {
      const c = http();
      c.entries.splice(entryIndex(c.entries, 'observed', { eventId: DENY }, 1), 1);
      expectOnRow(verify(c), DENY, 'chain automatic downgrade/permission/effective view mismatch');
    });

    test('an observation duplicated', () => {
      const c = http();
      const i = entryIndex(c.entries, 'observed', { eventId: DENY }, 2);
      c.entries.splice(i, 0, cloneJson(c.entries[i]!));
      expectOnRow(verify(c), DENY, 'chain automatic downgrade/permission/effective view mismatch');
    });

    test('the intercept method changed', () => {
      const c = http();
      (entryAt(c.entries, 'received', { id: DENY }).message as JsonObject).method = 'hooks/observe';
      expectOnRow(verify(c), DENY, 'chain intercept selection/effective request mismatch');
    });

    test('a disposition on an observation', () => {
      const c = http();
      ((entryAt(c.entries, 'observed', { eventId: DENY }, 1).message as JsonObject).params as JsonObject).disposition = 'denied';
      expectOnRow(verify(c), DENY, 'chain automatic downgrade/permission/effective view mismatch');
    });

    test('items restored on an omit view', () => {
      const c = http();
      const { observed, original } = omitView(c);
      setItems(observed, cloneJson(original));
      expectOnRow(verify(c), DENY, 'chain automatic downgrade/permission/effective view mismatch');
    });

    test('an observed input that is the original', () => {
      const c = http();
      const observed = entryAt(c.entries, 'observed', { eventId: DENY }, 2);
      (eventIn(observed).tool as JsonObject).input = { value: 'original' };
      observed.event = cloneJson(eventIn(observed));
      expectOnRow(verify(c), DENY, 'chain automatic downgrade/permission/effective view mismatch');
    });

    test("an observation's event id changed", () => {
      const c = http();
      eventIn(entryAt(c.entries, 'observed', { eventId: DENY }, 1)).id = 'observation-chain-other';
      const v = verify(c);
      expectOnRow(v, DENY, 'chain automatic downgrade/permission/effective view mismatch');
      expect(labels(v).rows[DENY]).toContain('chain receipt differs from exact wire notification');
    });

    test('the interrupt cancelled after the reply', () => {
      const c = http();
      moveAfter(c.entries, entryIndex(c.entries, 'cancelled', { scenario: INTERRUPT }), entryIndex(c.entries, 'replied', { id: INTERRUPT }));
      expectOnRow(verify(c), INTERRUPT, 'interruption waited for pending request');
    });

    test('a skipped chain result', () => {
      const c = http();
      resultOf(c, CONTINUE).status = 'skipped';
      expectOnRow(verify(c), CONTINUE, 'chain failed or skipped result');
    });

    test("a receipt's event that differs from its message", () => {
      const c = http();
      const observed = entryAt(c.entries, 'observed', { eventId: CONTINUE });
      observed.event = { ...cloneJson(eventIn(observed)), type: 'tool.after' };
      expectOnRow(verify(c), CONTINUE, 'chain receipt differs from exact wire notification');
    });

    test('an observed receipt with a key beyond {kind,eventId,event,message}', () => {
      const c = http();
      entryAt(c.entries, 'observed', { eventId: CONTINUE }).subscription = 'audit';
      expectOnRow(verify(c), CONTINUE, 'chain receipt differs from exact wire notification');
    });

    test('non-serial replies', () => {
      const c = http();
      moveBefore(c.entries, entryIndex(c.entries, 'received', { id: CONTINUE }, 1), entryIndex(c.entries, 'replied', { id: CONTINUE }, 0));
      expectOnRow(verify(c), CONTINUE, 'interceptors were not serial');
    });

    test('a body under an explicit omit view', () => {
      const c = http();
      const { observed, original } = omitView(c);
      setItems(observed, explicitOmit(original).map((item) => ({ ...item, body: { ref: 'rcv-1' } })));
      expectOnRow(verify(c), DENY, 'chain automatic downgrade/permission/effective view mismatch');
    });

    test('a changed item id under an explicit omit view', () => {
      const c = http();
      const { observed, original } = omitView(c);
      setItems(observed, explicitOmit(original).map((item) => ({ ...item, id: 'other-item' })));
      expectOnRow(verify(c), DENY, 'chain automatic downgrade/permission/effective view mismatch');
    });

    test('the second continue call with permission none', () => {
      const c = http();
      const call = entryAt(c.entries, 'received', { id: CONTINUE }, 1).message as JsonObject;
      expect(((call.params as JsonObject).state as JsonObject).permission).toBe('allow');
      ((call.params as JsonObject).state as JsonObject).permission = 'none';
      expectOnRow(verify(c), CONTINUE, 'chain intercept selection/effective request mismatch');
    });

    test('the second fail-open call with permission allow', () => {
      const c = http();
      const call = entryAt(c.entries, 'received', { id: FAIL_OPEN }, 1).message as JsonObject;
      expect(((call.params as JsonObject).state as JsonObject).permission).toBe('none');
      ((call.params as JsonObject).state as JsonObject).permission = 'allow';
      expectOnRow(verify(c), FAIL_OPEN, 'chain intercept selection/effective request mismatch');
    });

    test('an observation before the final reply', () => {
      const c = http();
      moveBefore(c.entries, entryIndex(c.entries, 'observed', { eventId: CONTINUE }), entryIndex(c.entries, 'replied', { id: CONTINUE }, 2));
      expectOnRow(verify(c), CONTINUE, 'observation before chain settlement');
    });

    test('no chain-settled mark', () => {
      const c = http();
      c.entries.splice(entryIndex(c.entries, 'chain-settled', { scenario: 'observation-chain-native' }), 1);
      expectOnRow(verify(c), 'observation-chain-native', 'observation before chain settlement');
    });
  });

  describe('the other §7.8 checks', () => {
    test('a wrong language fails the chain client; exit codes too', () => {
      const c = honestCase([canonicalRow(DENY)], 'http');
      c.report.language = 'go';
      expectOnRun(verify(c), 'chain client failed or wrong language');
      const d = honestCase([canonicalRow(DENY)], 'http');
      d.exitCode = null;
      expect(labels(verify(d))).toEqual({ run: ['client exit null', 'chain client failed or wrong language'], rows: {} });
    });

    test('a chain result missing or duplicated', () => {
      const c = http();
      const results = c.report.results as JsonObject[];
      results.splice(results.findIndex((r) => r.id === DENY), 1);
      expectOnRow(verify(c), DENY, 'chain result multiplicity');
      const d = http();
      (d.report.results as JsonObject[]).push(cloneJson(resultOf(d, CONTINUE)));
      expectOnRow(verify(d), CONTINUE, 'chain result multiplicity');
    });

    test('a chain result with another final input', () => {
      const c = http();
      (resultOf(c, FAIL_OPEN).actual as JsonObject).input = { value: 'original' };
      expectOnRow(verify(c), FAIL_OPEN, `${FAIL_OPEN}: chain local result mismatch`);
    });

    test('a kind a chain never records', () => {
      const c = http();
      c.entries.push({ kind: 'acquired', id: DENY, scenario: DENY });
      expectOnRow(verify(c), DENY, 'unknown chain receipt');
    });

    test('a chain-settled mark naming another scenario', () => {
      const c = http();
      entryAt(c.entries, 'chain-settled', { scenario: CONTINUE }).scenario = DENY;
      expectOnRow(verify(c), CONTINUE, 'chain milestone scenario mismatch');
    });

    test('a reply missing', () => {
      const c = http();
      c.entries.splice(entryIndex(c.entries, 'replied', { id: CONTINUE }, 1), 1);
      expectOnRow(verify(c), CONTINUE, 'chain response multiplicity/order');
    });

    test('a cancel in a chain that is not interrupted', () => {
      const c = http();
      c.entries.splice(entryIndex(c.entries, 'chain-settled', { scenario: DENY }), 0, { kind: 'cancelled', id: DENY, scenario: DENY });
      expectOnRow(verify(c), DENY, 'unexpected chain interruption');
    });

    test('the chain settled before its last response', () => {
      const c = http();
      moveBefore(c.entries, entryIndex(c.entries, 'chain-settled', { scenario: CONTINUE }), entryIndex(c.entries, 'replied', { id: CONTINUE }, 2));
      expectOnRow(verify(c), CONTINUE, 'chain settled before response');
    });

    test('an interruption followed by observation work', () => {
      const c = http();
      const observed = cloneJson(entryAt(c.entries, 'observed', { eventId: DENY }, 1));
      eventIn(observed).id = INTERRUPT;
      observed.eventId = INTERRUPT;
      observed.event = cloneJson(eventIn(observed));
      c.entries.push(observed);
      const v = verify(c);
      expectOnRow(v, INTERRUPT, 'interruption initiated observation work');
    });

    test('an observer gate in a chain that does not hold observers', () => {
      const c = http();
      c.entries.push({ kind: 'observer-blocked', id: DENY });
      expectOnRow(verify(c), DENY, 'unexpected observer gate');
    });

    test('a chain that holds observers passes only with its post-stop blocked proof', () => {
      const held = cloneJson(canonicalRow(DENY)) as ChainScenario;
      held.chain.holdObservers = true;
      const c = honestCase([held], 'http');
      expectOnRow(verify(c), DENY, 'missing post-stop blocked observer proof');
      const d = honestCase([held], 'http');
      const after = entryIndex(d.entries, 'replied', { id: DENY });
      d.entries.splice(after + 1, 0, ...held.chainProof.observations.map(() => ({ kind: 'observer-blocked', id: DENY })));
      expectClean(verify(d));
      const e = honestCase([held], 'http');
      e.entries.splice(entryIndex(e.entries, 'received', { id: DENY }), 0, ...held.chainProof.observations.map(() => ({ kind: 'observer-blocked', id: DENY })));
      expectOnRow(verify(e), DENY, 'missing post-stop blocked observer proof');
    });

    test('an intercept call that fails the schema', () => {
      const c = http();
      delete (entryAt(c.entries, 'received', { id: DENY }).message as JsonObject).jsonrpc;
      expectOnRow(verify(c), DENY, 'chain intercept selection/effective request mismatch');
    });
  });

  describe('§11 Chains accept', () => {
    test('an rpc id that differs from the event id', () => {
      const renamed = rows.map((row): LifecycleScenario => {
        if (row.chain === undefined) return row;
        const copy = cloneJson(row);
        const rpc = `rpc:${row.id}`;
        copy.requests.a!.id = rpc;
        for (const request of copy.chainProof.requests) request.id = rpc;
        return copy;
      });
      const c = honestCase(renamed, 'http');
      expect(entryAt(c.entries, 'received', { id: `rpc:${DENY}` })).toBeDefined();
      expect(entryAt(c.entries, 'observed', { eventId: DENY })).toBeDefined();
      expectClean(verify(c));
      expectClean(verify(honestCase(renamed, 'stdio')));
    });

    test('an explicit omit view instead of an empty one', () => {
      const c = http();
      const { observed, original } = omitView(c);
      setItems(observed, explicitOmit(original));
      expectClean(verify(c));
    });

    test.for(['http', 'stdio'] as const)('%s: a client that sends every empty view in the explicit omit form, intercept calls too', (transport) => {
      const c = honestCase(rows, transport);
      const calls = c.entries.filter((e) => e.kind === 'received' && [FAIL_OPEN, CONTINUE].includes(String(eventIn(e).id)));
      expect(sendExplicitOmitViews(c)).toBeGreaterThan(0);
      // The two rows the SDK clients failed before §7.8 was corrected: their omit call now carries items.
      for (const id of [FAIL_OPEN, CONTINUE]) {
        expect(calls.some((e) => eventIn(e).id === id && (eventIn(e).items as JsonObject[]).some((item) => item.selection === 'omit'))).toBe(true);
      }
      expectClean(verify(c));
    });
  });

  describe('the explicit omit form of an intercept call: exactly that form, nothing else', () => {
    const broken: Array<[string, (items: JsonObject[]) => JsonObject[]]> = [
      ['a changed item id', (items) => items.map((item) => ({ ...item, id: 'other-item' }))],
      ['a body', (items) => items.map((item) => ({ ...item, body: { ref: 'rcv-1' } }))],
      ['a gap', (items) => items.map((item) => ({ ...item, gap: { reason: 'omitted' } }))],
      ['a selection other than omit', (items) => items.map((item) => ({ ...item, selection: 'metadata' }))],
      ['changed metadata', (items) => items.map((item) => ({ ...item, mediaType: 'text/markdown' }))],
      ['an extra key', (items) => items.map((item) => ({ ...item, note: 'extra' }))],
      ['an item dropped', (items) => items.slice(1).concat(items.length > 1 ? [] : [{ ...items[0]!, id: 'replacement' }])],
    ];
    test.for(broken)('%s fails its row', ([, edit]) => {
      const c = http();
      const { entry, row } = emptyInterceptCall(c);
      eventIn(entry).items = edit(explicitOmit(row.requests.a!.params.event.items as JsonObject[]));
      const v = verify(c);
      expectOnRow(v, row.id, 'chain intercept selection/effective request mismatch');
      expect(v.rows.get(row.id)!.map((check) => check.message).join('\n')).toContain('nor is it the explicit omit form of the original items');
    });
  });
});

describe('§7.8 chains on our own fixtures: the explicit omit client', () => {
  test('our fixtures have chain rows with an empty intercept view', () => {
    expect(OWN_CHAIN_ROWS.some((row) => row.chainProof.requests.some((request) => ((request.params.event.items as unknown[] | undefined) ?? []).length === 0))).toBe(true);
  });

  test.for(['http', 'stdio'] as const)('%s: every chain row passes with every empty view in the explicit omit form', (transport) => {
    expectClean(verify(honestCase(OWN_CHAIN_ROWS, transport)));
    const c = honestCase(OWN_CHAIN_ROWS, transport);
    expect(sendExplicitOmitViews(c)).toBeGreaterThan(0);
    expectClean(verify(c));
  });

  test('the same client with an item id changed in the omit form fails exactly the rows it sent that to', () => {
    const c = honestCase(OWN_CHAIN_ROWS, 'http');
    const { entry, row } = emptyInterceptCall(c);
    eventIn(entry).items = explicitOmit(row.requests.a!.params.event.items as JsonObject[]).map((item, i) => (i === 0 ? { ...item, id: `${String(item.id)}-changed` } : item));
    expectOnRow(verify(c), row.id, 'chain intercept selection/effective request mismatch');
  });
});

const oldFile = canonicalInteropFile('observation-chain-scenarios.json');
describe.skipIf(oldFile === undefined || CANONICAL_ROWS === undefined)('§13: the superseded interrupt row of observation-chain-scenarios.json', () => {
  const old = oldFile ? loadLifecycleScenarioFileSync(oldFile).scenarios.find((r) => r.id === INTERRUPT) : undefined;

  test('cannot pass: without blocked observers the gate proof is missing, with them the interruption observed', () => {
    if (old?.chain === undefined) throw new Error('the old file has no interrupt chain');
    expect(old.chain.holdObservers).toBe(true);
    expect(old.chainProof.observations.length).toBe(3);
    const c = honestCase([old], 'http');
    expectOnRow(verify(c), INTERRUPT, 'missing post-stop blocked observer proof');
    const d = honestCase([old], 'http');
    d.entries.push(...old.chainProof.observations.map(() => ({ kind: 'observer-blocked', id: INTERRUPT })));
    const found = labels(verify(d)).rows[INTERRUPT];
    expect(found).toContain('interruption initiated observation work');
    expect(verify(honestCase([canonicalRow(INTERRUPT)], 'http')).rows.get(INTERRUPT)).toEqual([]);
  });
});
