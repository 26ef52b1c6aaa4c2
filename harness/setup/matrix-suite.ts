import path from 'node:path';
import { beforeAll, describe, expect, inject, test } from 'vitest';
import { loadConfig } from '../config/load-config.ts';
import { loadScenarioFile } from '../scenarios/load-scenarios.ts';
import { isRunnable, loadAdapters, notRunReason, planMatrix, type MatrixGroup } from '../runs/plan.ts';
import { MatrixRunner } from '../runs/matrix-runner.ts';
import type { RowVerdict } from '../verify/verify-run.ts';

/** What each matrix test records for the reporters (vitest task meta is serialised to them). */
export interface MatrixRowMeta {
  group: string;
  server: string;
  client: string;
  transport: string;
  auth: string;
  id: string;
  expected: unknown;
  actual: unknown;
  verdict: RowVerdict['verdict'];
  /** The client's row status; `inapplicable`/`unsupported` also for groups the planner never runs. */
  adapterStatus: RowVerdict['adapterStatus'];
  /** `stage/kind` labels of run integrity failures (never raw adapter output). */
  errors: string[];
  /** The planner's reason for a group that never runs (inapplicable / unsupported); the skip note. */
  skipReason?: string;
  /** Why this row's evidence is reduced (e.g. receipts only), when it is; also a test annotation. */
  evidenceNote?: string;
}

declare module 'vitest' {
  interface TaskMeta {
    ahpMatrix?: MatrixRowMeta;
  }
}

interface SuiteLike {
  name: string;
  type: string;
  mode: string;
  tasks?: SuiteLike[];
}

/**
 * Registers one `describe` per `<server>→<client> <transport>/<auth>` group and one test per
 * scenario, named exactly by the scenario id, so `-t <id>` and the IDE explorer select single rows.
 * A file-level `beforeAll` sees which tests are selected (mode `run`) and starts one client run per
 * group for exactly those rows, all groups at once within the configured parallelism.
 */
export async function defineMatrixSuite(suite: string): Promise<void> {
  const config = await loadConfig();
  const scenarioPath = config.scenarios[suite];
  if (!scenarioPath) throw new Error(`${config.file}: scenarios.${suite}: expected the ${suite} scenario file path`);
  const scenarioFile = await loadScenarioFile(scenarioPath);
  const groups = planMatrix(config, loadAdapters(config));
  const runner = new MatrixRunner({
    scenarios: scenarioFile.scenarios,
    serverScenarioFile: scenarioPath,
    schemasDir: config.schemas,
    servers: inject('ahpServers'),
    clientAuth: inject('ahpClientAuth'),
    watchdogs: config.watchdogs,
    parallelism: config.parallelism,
    runDir: inject('ahpRunDir'),
    logDir: path.join(config.reports, 'logs'),
    proxyTls: inject('ahpProxyTls'),
  });
  const byLabel = new Map<string, MatrixGroup>(groups.map((group) => [group.label, group]));
  const rowTimeout = config.watchdogs.startupMs + config.watchdogs.runMs * 2 + 30_000;

  // eslint-disable-next-line no-empty-pattern -- vitest requires a destructuring pattern for fixtures
  beforeAll(({}, file) => {
    for (const child of ((file as unknown as SuiteLike).tasks ?? [])) {
      const group = byLabel.get(child.name);
      if (!group || !isRunnable(group) || child.type !== 'suite') continue;
      const ids = (child.tasks ?? []).filter((task) => task.type === 'test' && task.mode === 'run').map((task) => task.name);
      if (ids.length > 0) void runner.schedule(group, ids).catch(() => undefined);
    }
  });

  for (const group of groups) {
    describe(group.label, () => {
      test.for(scenarioFile.scenarios.map((scenario) => scenario.id))('%s', { timeout: rowTimeout }, async (id, context) => {
        const scenario = scenarioFile.scenarios.find((row) => row.id === id)!;
        const meta: MatrixRowMeta = {
          group: group.label,
          server: group.server.name,
          client: group.client.name,
          transport: group.transport,
          auth: group.auth,
          id,
          expected: scenario.expected ?? { expectError: true },
          actual: null,
          verdict: 'skipped',
          adapterStatus: group.inapplicable !== undefined ? 'inapplicable' : group.unsupported !== undefined ? 'unsupported' : 'missing',
          errors: [],
        };
        context.task.meta.ahpMatrix = meta;
        // Groups the planner never runs: skipped with the reason, never passed, no process started.
        const notRun = notRunReason(group);
        if (notRun !== undefined) {
          meta.skipReason = notRun;
          context.skip(notRun);
          return;
        }
        const pending = runner.result(group.label) ?? runner.schedule(group, [id]);
        const run = await pending;
        const row = run.verification.rows.get(id);
        if (!row) throw new Error(`harness bug: ${group.label} › ${id} was not part of the run`);
        const labels = [
          ...run.verification.integrity.map((line) => /^\[([^\]]+)\]/.exec(line)?.[1] ?? 'run/unknown'),
          ...row.faults.map((fault) => fault.label),
        ];
        Object.assign(meta, {
          actual: row.actual ?? null,
          verdict: row.verdict,
          adapterStatus: row.adapterStatus,
          errors: [...new Set(labels)],
        });
        const note = run.verification.note;
        if (note !== undefined) {
          meta.evidenceNote = note;
          await context.annotate(note, 'notice');
        }
        if (row.verdict === 'skipped') {
          context.skip(row.reason);
          return;
        }
        if (row.verdict === 'failed') {
          const logs = run.keptLogs.length > 0 ? `\nlogs: ${run.keptLogs.join(', ')}` : '';
          const noted = note !== undefined ? `\nnote: ${note}` : '';
          expect.fail(`${group.label} › ${id}\n${row.reason}${noted}${logs}`);
        }
        expect(row.verdict).toBe('passed');
      });
    });
  }
}
