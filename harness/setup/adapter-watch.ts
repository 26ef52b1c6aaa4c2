// Watch mode while writing an adapter: when a file under a configured adapter's `cwd` changes, that
// adapter's servers are restarted (the other adapters' stay up) and the groups that involve it are
// rerun. vitest's own watcher cannot do this: adapters run as separate processes, so their files are
// never in the test files' module graph.
//
// One watcher per vitest instance; every matrix project's globalSetup registers with it (its own
// restart hook and test files). Changes are debounced and coalesced per adapter; ignored: anything
// under node_modules, .venv, target, dist, .git, and dotfiles. The rerun sets a test-name pattern that
// selects exactly the groups whose server or client is a changed adapter, then restores the user's.

import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

import type { TestProject, TestSpecification, Vitest } from 'vitest/node';

const IGNORED = new Set(['node_modules', '.venv', 'target', 'dist', '.git']);
const DEBOUNCE_MS = 300;

export interface WatchedProject {
  project: TestProject;
  /** Restart what the project keeps for `adapter` (its servers); the next lease starts fresh ones. */
  restart(adapter: string): Promise<void>;
}

/** True for a changed path (relative to an adapter's cwd) that should not trigger a rerun. */
export function ignoredChange(relative: string): boolean {
  return relative.split(/[\\/]/).some((part) => IGNORED.has(part) || part.startsWith('.'));
}

/**
 * True for an absolute path inside one of the folders the run itself writes to: an SDK's ./reports
 * beside its adapter must never count as an edit, or every run would start another.
 */
export function isRunOutput(file: string, written: readonly string[]): boolean {
  return written.some((dir) => file === dir || file.startsWith(`${dir}${path.sep}`));
}

/** A test-name pattern for every group and probe whose server or client is one of `adapters`. */
export function adapterPattern(adapters: readonly string[]): RegExp {
  const names = adapters.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  // `<server>→<client> <transport>/<auth>`, and the probes' `<server> <mode>...`.
  return new RegExp(`^(?:(?:${names})[→ ]|[^ ]*→(?:${names}) )`);
}

class AdapterWatcher {
  private readonly projects: WatchedProject[] = [];
  private readonly watchers: FSWatcher[] = [];
  private readonly changed = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly vitest: Vitest,
    adapters: ReadonlyArray<{ name: string; cwd: string }>,
    /** Absolute folders the run itself writes to (the reports), which may lie inside an adapter's folder. */
    private readonly written: readonly string[],
  ) {
    for (const adapter of adapters) {
      try {
        const watcher = watch(adapter.cwd, { recursive: true }, (_event, file) => {
          if (file !== null && (ignoredChange(String(file)) || isRunOutput(path.join(adapter.cwd, String(file)), this.written))) return;
          this.changed.add(adapter.name);
          clearTimeout(this.timer);
          this.timer = setTimeout(() => this.flush(), DEBOUNCE_MS);
        });
        watcher.on('error', () => undefined);
        this.watchers.push(watcher);
      } catch {
        // an adapter folder that cannot be watched is simply not watched
      }
    }
  }

  register(project: WatchedProject): void {
    this.projects.push(project);
  }

  close(): void {
    clearTimeout(this.timer);
    for (const watcher of this.watchers) watcher.close();
  }

  private flush(): void {
    const adapters = [...this.changed];
    this.changed.clear();
    // One rerun at a time; changes during a rerun are collected for the next one.
    this.running = this.running.then(() => this.rerun(adapters)).catch((error: unknown) => {
      this.vitest.logger.error(`ahp-conformance: rerunning after a change of ${adapters.join(', ')} failed: ${(error as Error).message}`);
    });
  }

  private async rerun(adapters: string[]): Promise<void> {
    this.vitest.logger.log(`\nahp-conformance: adapter ${adapters.map((name) => `"${name}"`).join(', ')} changed: restarting its servers and rerunning the groups that involve it`);
    for (const watched of this.projects) for (const adapter of adapters) await watched.restart(adapter);
    const specifications: TestSpecification[] = [];
    for (const { project } of this.projects) {
      const files = await project.globTestFiles();
      for (const file of files.testFiles) specifications.push(project.createSpecification(file));
    }
    const previous = this.vitest.getGlobalTestNamePattern();
    this.vitest.setGlobalTestNamePattern(adapterPattern(adapters));
    try {
      await this.vitest.rerunTestSpecifications(specifications);
    } finally {
      if (previous) this.vitest.setGlobalTestNamePattern(previous);
      else this.vitest.resetGlobalTestNamePattern();
    }
  }
}

const watchers = new WeakMap<Vitest, AdapterWatcher>();

/**
 * In watch mode, registers `project` with the run's adapter watcher (created on first use). Returns
 * the teardown (closes the watcher when the last project leaves). Outside watch mode: nothing.
 */
export function watchAdapters(
  project: TestProject,
  adapters: ReadonlyArray<{ name: string; cwd: string }>,
  restart: (adapter: string) => Promise<void>,
  written: readonly string[] = [],
): () => void {
  const vitest = project.vitest;
  if (!vitest.config.watch) return () => undefined;
  let watcher = watchers.get(vitest);
  if (!watcher) {
    watcher = new AdapterWatcher(
      vitest,
      adapters.map((adapter) => ({ name: adapter.name, cwd: path.resolve(adapter.cwd) })),
      written.map((dir) => path.resolve(dir)),
    );
    watchers.set(vitest, watcher);
  }
  watcher.register({ project, restart });
  const owned = watcher;
  return () => {
    owned.close();
    watchers.delete(vitest);
  };
}
