import type { ResolvedConfig } from '../../config/load-config.ts';
import { projectRoot } from '../../config/load-config.ts';
import path from 'node:path';
import type { CompactionCaseFile } from './case-types.ts';
import { loadCompactionCaseFile } from './load-compaction-cases.ts';

/** The config's compaction case file (`scenarios.compaction`, ours by default), loaded and checked. */
export function compactionCaseFile(config: ResolvedConfig): CompactionCaseFile {
  return loadCompactionCaseFile(config.scenarios.compaction ?? path.join(projectRoot(), 'fixtures', 'compaction.json'));
}
