// The configured known-failure baseline for a suite file. Checking that every entry names a configured
// row needs every family's planner (auth, catalogue, isolation, ...), which costs a test worker about
// half a second to import; so that module is loaded only when a baseline with entries is configured,
// and a run without one (the usual case, and every watch-mode rerun) never pays for it.

import type { ResolvedConfig } from '../config/load-config.ts';
import { loadBaseline, type Baseline } from './baseline.ts';

const cache = new Map<string, Promise<Baseline | undefined>>();

/** The configured baseline, validated against every configured row (once per process); undefined without one. */
export function baselineFor(config: ResolvedConfig): Promise<Baseline | undefined> {
  if (config.baseline === null) return Promise.resolve(undefined);
  const file = config.baseline;
  let loaded = cache.get(file);
  if (!loaded) {
    loaded = (async () => {
      const baseline = loadBaseline(file);
      if (baseline.entries.length > 0) {
        const { configuredRows } = await import('./configured-rows.ts');
        baseline.checkCoverage(await configuredRows(config));
      }
      return baseline;
    })();
    cache.set(file, loaded);
  }
  return loaded;
}
