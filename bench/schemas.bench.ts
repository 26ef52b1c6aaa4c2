// Schema compile cost: a fresh in-memory ajv compile of a schema directory versus loading the same
// validators from the cross-process standalone cache (what every worker after the first does).

import fs from 'node:fs';
import path from 'node:path';

import { projectRoot } from '../harness/config/load-config.ts';
import { clearValidatorMemo, loadValidators } from '../harness/protocol/load-validators.ts';
import { canonicalSchemaDir } from '../harness/protocol/canonical-schemas.ts';
import { formatMeasurement, formatRatio, measureSlow, type Bench, type BenchOutput, type Measurement } from './lib/measure.ts';

export interface ValidatorLoading {
  /** Fresh in-memory compiles (no cache). */
  fresh: Measurement;
  /** Loads from the standalone cache as a fresh process would; undefined when it could not be written. */
  cached?: Measurement;
  /** The `origin` the last cached load reported (`cache` when it really came from the cache). */
  origin?: string;
}

/**
 * Times `runs.compile` fresh compiles of `dir` against `runs.load` loads from its standalone cache
 * (after `warmup` untimed calls of each). Also what the grid bench prints its one line from.
 */
export function measureValidatorLoading(label: string, dir: string, runs: { compile: number; load: number; warmup: number }): ValidatorLoading {
  const fresh = measureSlow(`${label}: fresh compile (no cache)`, () => {
    clearValidatorMemo();
    return loadValidators(dir, { cacheDir: false });
  }, runs.compile, runs.warmup);

  // Make sure the cache module exists, then time loading from it as a fresh process would.
  clearValidatorMemo();
  const primed = loadValidators(dir);
  if (primed.cacheFile === null || !fs.existsSync(primed.cacheFile)) return { fresh };
  let origin = '';
  const cached = measureSlow(`${label}: load from standalone cache`, () => {
    clearValidatorMemo();
    const loaded = loadValidators(dir);
    origin = loaded.origin;
    return loaded;
  }, runs.load, runs.warmup);
  return { fresh, cached, origin };
}

function compileCost(out: BenchOutput, label: string, dir: string): void {
  const { fresh, cached, origin } = measureValidatorLoading(label, dir, { compile: 3, load: 10, warmup: 1 });
  out.line(formatMeasurement(fresh));
  if (cached === undefined) {
    out.line(`  ${label}: standalone cache could not be written; no cache comparison`);
    return;
  }
  out.line(formatMeasurement(cached));
  if (origin !== 'cache') out.line(`  note: the last load reported origin "${origin}", not "cache"`);
  out.line(formatRatio(`${label} cache vs compile`, cached, fresh));
}

export const schemaCompileBench: Bench = {
  name: 'schema compile',
  run(out) {
    out.section('Schema compile cost (ajv 2020, all six entry points)');
    compileCost(out, 'ours', path.join(projectRoot(), 'schemas'));
    const canonical = canonicalSchemaDir();
    if (canonical) compileCost(out, 'canonical', canonical);
    else out.line('  canonical schema directory not found (set AHP_CANONICAL_SCHEMAS); skipped');
  },
};
