import type { ResolvedConfig } from '../config/load-config.ts';
import { FAMILIES } from '../families/family.ts';
import { loadAdapters } from '../runs/plan.ts';
import type { BaselineRow } from './baseline.ts';

/**
 * Every test row the configuration defines, over every family a baseline can name (each family's
 * `configuredRows` hook), so an entry that names none of them is an error in any project.
 */
export async function configuredRows(config: ResolvedConfig): Promise<BaselineRow[]> {
  const adapters = loadAdapters(config);
  const perFamily = await Promise.all(FAMILIES.map(async (family) => (await family.hooks()).hooks.configuredRows(config, adapters)));
  return perFamily.flat();
}
