// Requirement coverage, the table side: our requirement table against the spec's own ID list (and a
// deliberately wrong table that the check catches), the rows' `requirements` field as the generators
// write it and the format schemas judge it, and what a file without the field counts as.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { execa } from 'execa';
import { afterAll, describe, expect, test } from 'vitest';

import { parseCatalogueScenarioFile } from '../../harness/families/catalogue/load-catalogue-scenarios.ts';
import { projectRoot } from '../../harness/config/load-config.ts';
import { parseLifecycleScenarioFile } from '../../harness/families/lifecycle/load-lifecycle-scenarios.ts';
import { REQUIREMENTS, REQUIREMENTS_BY_ID, type Requirement } from '../../harness/requirements/requirement-table.ts';
import { catalogueRowRequirements, coreRowRequirements, lifecycleRowRequirements, requirementsField } from '../../harness/requirements/row-requirements.ts';
import { compareWithSpec, DEFAULT_SPEC_DIR, DEFAULT_SPEC_SCHEMA_DIR, readSpecIds, SpecRequirementsError, type SpecId } from '../../harness/requirements/spec-ids.ts';
import { lintOwnScenarioFile } from '../../harness/scenarios/lint-scenario-file.ts';
import type { ScenarioFile } from '../../harness/scenarios/types.ts';

const specDir = process.env.AHP_CANONICAL_SPEC || DEFAULT_SPEC_DIR;
const schemaDir = process.env.AHP_CANONICAL_SCHEMAS || DEFAULT_SPEC_SCHEMA_DIR;
const specPresent = existsSync(path.join(specDir, 'requirements.json')) && existsSync(schemaDir);
const fixture = (name: string): string => readFileSync(path.join(projectRoot(), 'fixtures', name), 'utf8');

describe('the requirement table against the spec', () => {
  test.skipIf(!specPresent)(`agrees with the spec's IDs and levels (${specDir}, ${schemaDir})`, () => {
    const spec = readSpecIds(specDir, schemaDir);
    expect(spec.length).toBeGreaterThanOrEqual(22);
    expect(compareWithSpec(REQUIREMENTS, spec)).toEqual([]);
  });

  const spec: SpecId[] = [
    { id: 'AHP-COMP-001', level: 'MUST', sources: ['composition.md'] },
    { id: 'AHP-DEC-003', level: 'MUST NOT', sources: ['requirements.json'] },
    { id: 'AHP-EXT-001', sources: ['extensions.schema.json'] },
  ];
  const entry = (id: string, level: Requirement['level'] = 'MUST', summary = 'says something'): Requirement => ({ id, level, summary });
  test('a table that lacks an ID, has one the spec does not, states another level or repeats an ID is caught', () => {
    const wrong = [entry('AHP-COMP-001'), entry('AHP-DEC-003', 'MUST'), entry('AHP-NEW-001'), entry('AHP-NEW-001'), entry('AHP-X-1', 'MUST', ' ')];
    expect(compareWithSpec(wrong, spec)).toEqual([
      'AHP-NEW-001: listed twice in our table',
      'AHP-X-1: not an ID like AHP-COMP-001',
      'AHP-X-1: has no summary',
      'AHP-DEC-003: our table says MUST, the spec says MUST NOT',
      'AHP-EXT-001: in the spec (extensions.schema.json) but missing from our table',
      'AHP-NEW-001: in our table but in no spec source',
      'AHP-NEW-001: in our table but in no spec source',
      'AHP-X-1: in our table but in no spec source',
    ]);
    expect(compareWithSpec([entry('AHP-COMP-001'), entry('AHP-DEC-003', 'MUST NOT'), entry('AHP-EXT-001', 'SHOULD')], spec)).toEqual([]);
  });

  const dir = mkdtempSync(path.join(os.tmpdir(), 'ahp-spec-ids-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  test('all three sources count, and a broken source is an error naming the file and the field', () => {
    const specAt = path.join(dir, 'spec');
    const schemasAt = path.join(dir, 'schema');
    mkdirSync(path.join(specAt, 'base'), { recursive: true });
    mkdirSync(schemasAt);
    writeFileSync(path.join(specAt, 'requirements.json'), JSON.stringify({ requirements: [{ id: 'AHP-RPC-001', level: 'MUST' }] }));
    writeFileSync(path.join(specAt, 'base', 'x.md'), 'text\n**AHP-EDIT-001 — MUST.** a statement\n');
    writeFileSync(path.join(schemasAt, 'a.schema.json'), JSON.stringify({ properties: { b: { 'x-requirements': ['AHP-CAP-001'] } } }));
    expect(readSpecIds(specAt, schemasAt).map(({ id, level }) => [id, level])).toEqual([['AHP-CAP-001', undefined], ['AHP-EDIT-001', 'MUST'], ['AHP-RPC-001', 'MUST']]);

    writeFileSync(path.join(specAt, 'requirements.json'), JSON.stringify({ requirements: [{ id: 'AHP-RPC-001', level: 'PERHAPS' }] }));
    expect(() => readSpecIds(specAt, schemasAt)).toThrow(new SpecRequirementsError(path.join(specAt, 'requirements.json'), 'requirements[0].level', 'expected one of MUST NOT, MUST, SHOULD NOT, SHOULD, MAY, got "PERHAPS"'));
    writeFileSync(path.join(specAt, 'requirements.json'), '{');
    expect(() => readSpecIds(specAt, schemasAt)).toThrow(/requirements\.json: not valid JSON/);
    writeFileSync(path.join(specAt, 'requirements.json'), JSON.stringify({ requirements: [] }));
    writeFileSync(path.join(schemasAt, 'a.schema.json'), JSON.stringify({ properties: { b: { 'x-requirements': 'AHP-CAP-001' } } }));
    expect(() => readSpecIds(specAt, schemasAt)).toThrow(`${path.join(schemasAt, 'a.schema.json')}: $.properties.b.x-requirements: expected an array of IDs like AHP-COMP-001`);
  });
});

test('npm run requirements -- --check exits 1 and lists the difference when the spec has an ID our table lacks', async () => {
  const at = mkdtempSync(path.join(os.tmpdir(), 'ahp-spec-cli-'));
  try {
    mkdirSync(path.join(at, 'spec'));
    mkdirSync(path.join(at, 'schema'));
    const ids = REQUIREMENTS.map(({ id, level }) => ({ id, level }));
    writeFileSync(path.join(at, 'spec', 'requirements.json'), JSON.stringify({ requirements: [...ids, { id: 'AHP-NEXT-001', level: 'SHOULD' }] }));
    const run = (spec: string) =>
      execa(path.join(projectRoot(), 'node_modules', '.bin', 'tsx'), [path.join(projectRoot(), 'harness', 'requirements', 'requirements-cli.ts'), '--check', '--spec', spec, '--schemas', path.join(at, 'schema')], { reject: false, timeout: 60_000 });
    const failing = await run(path.join(at, 'spec'));
    expect(failing.exitCode).toBe(1);
    expect(failing.stderr).toContain('AHP-NEXT-001: in the spec');
    writeFileSync(path.join(at, 'spec', 'requirements.json'), JSON.stringify({ requirements: ids }));
    const agreeing = await run(path.join(at, 'spec'));
    expect(agreeing.exitCode, agreeing.stderr).toBe(0);
    expect(agreeing.stdout).toContain(`requirement table: ${REQUIREMENTS.length} IDs, the same as the spec's`);
  } finally {
    rmSync(at, { recursive: true, force: true });
  }
}, 120_000);

describe("the rows' requirements field", () => {
  const files = {
    core: JSON.parse(fixture('scenarios.json')) as { scenarios: Array<Record<string, unknown>> },
    lifecycle: JSON.parse(fixture('lifecycle-scenarios.json')) as { scenarios: Array<Record<string, unknown>> },
    catalogue: JSON.parse(fixture('catalogue-scenarios.json')) as { scenarios: Array<Record<string, unknown>> },
  };
  test('every generated row names requirement IDs of our table, as the derivation gives them', () => {
    const derive = { core: coreRowRequirements, lifecycle: lifecycleRowRequirements, catalogue: catalogueRowRequirements };
    for (const [family, file] of Object.entries(files) as Array<[keyof typeof files, (typeof files)['core']]>) {
      for (const row of file.scenarios) {
        const named = requirementsField(row);
        expect(named, `${family} ${String(row.id)}`).toEqual(derive[family](row));
        expect(named!.every((id) => REQUIREMENTS_BY_ID.has(id))).toBe(true);
      }
    }
  });

  test('the derivation follows what the row does: a deny, a modification, an unadvertised effect, a chain, a registration', () => {
    const byId = (family: keyof typeof files, id: string): string[] => requirementsField(files[family].scenarios.find((row) => row.id === id))!;
    expect(byId('core', 'permission.deny')).toEqual(expect.arrayContaining(['AHP-DEC-001', 'AHP-DEC-002', 'AHP-TB-001', 'AHP-CAP-002']));
    expect(byId('core', 'permission.allow')).not.toContain('AHP-DEC-002');
    expect(byId('core', 'modify.replace')).toContain('AHP-EDIT-001');
    expect(byId('core', 'permission.no-effects-allows')).toEqual(expect.arrayContaining(['AHP-DEC-003', 'AHP-SEC-001']));
    expect(byId('core', 'flow.tool.continue-not-advertised')).toContain('AHP-CAP-001');
    const chain = files.lifecycle.scenarios.find((row) => row.chain !== undefined)!;
    expect(requirementsField(chain)).toContain('AHP-COMP-001');
    const registration = files.catalogue.scenarios.find((row) => row.category === 'registration')!;
    expect(requirementsField(registration)).toContain('AHP-REG-001');
  });

  test('a row without the field is unmapped, and a malformed field is refused by each format', () => {
    expect(requirementsField({ id: 'x' })).toBeUndefined();
    expect(requirementsField({ id: 'x', requirements: 'AHP-COMP-001' })).toBeUndefined();
    const core = JSON.parse(fixture('scenarios.json')) as ScenarioFile;
    core.scenarios = core.scenarios.slice(0, 1);
    expect(lintOwnScenarioFile(core)).toEqual([]);
    core.scenarios[0]!.requirements = ['AHP-comp-1'];
    expect(lintOwnScenarioFile(core).join('\n')).toMatch(/requirements/);

    const lifecycle = JSON.parse(fixture('lifecycle-scenarios.json')) as { scenarios: Array<Record<string, unknown>> };
    lifecycle.scenarios = lifecycle.scenarios.slice(0, 1);
    expect(() => parseLifecycleScenarioFile(JSON.stringify(lifecycle), 'l.json')).not.toThrow();
    lifecycle.scenarios[0]!.requirements = 'AHP-COMP-001';
    expect(() => parseLifecycleScenarioFile(JSON.stringify(lifecycle), 'l.json')).toThrow(/requirements/);

    const catalogue = JSON.parse(fixture('catalogue-scenarios.json')) as { scenarios: Array<Record<string, unknown>> };
    catalogue.scenarios = catalogue.scenarios.slice(0, 1);
    expect(() => parseCatalogueScenarioFile(JSON.stringify(catalogue), 'c.json')).not.toThrow();
    catalogue.scenarios[0]!.requirements = ['AHP-COMP-001', 'AHP-COMP-001'];
    expect(() => parseCatalogueScenarioFile(JSON.stringify(catalogue), 'c.json')).toThrow(/requirements/);
  });
});
