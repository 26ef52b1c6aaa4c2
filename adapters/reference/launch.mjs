// Starts one entry point of the reference adapter from a bundle cached on disk:
//
//   node launch.mjs client.ts --config CONFIG.json
//
// behaves exactly like `node --import tsx client.ts --config CONFIG.json`, but starts faster: tsx
// resolves and transpiles each of the 30–65 modules through loader hooks on a separate thread, which
// costs every adapter process another 0.15–0.3 s of CPU before it does anything — paid by every client
// run, every stdio server spawn and every watch-mode rerun. Measured on the shared 2-core machine
// (medians of 21 starts that load every module and stop at a missing config; a bare `node -e 0` takes
// 0.05 s of CPU): server.ts and lifecycle-server.ts 0.11 s CPU / 0.13 s wall here, 0.34–0.39 s /
// 0.35–0.42 s under tsx; client.ts 0.22 s / 0.26 s vs 0.38 s / 0.46 s; lifecycle-client.ts 0.24 s /
// 0.27 s vs 0.45 s / 0.49 s (both clients also import undici, about 0.1 s of that).
//
// The cache file holds the bundle and what it was built from as one unit: its first line is a comment
// with the format, the entry, a digest of the code below it and the [mtime, size] stamp of every input
// — each source file esbuild read, this launcher, the project's tsconfig.json and esbuild's
// package.json. A start runs the file only when all of them match; otherwise it rebuilds the bundle
// (esbuild: about 0.2 s more for that one start) and replaces the file with one rename. So editing
// the adapter or the harness modules it uses takes effect on the next start, as with tsx; a crash or
// concurrent starts never pair a bundle with another build's stamps; and a truncated or garbled file
// is rebuilt, not run.
//
// Each module keeps its own `import.meta.url` (a bundle would otherwise give every module the bundle's
// location), so paths the adapter derives from it — the project root, schemas, fixtures — are the
// same as under tsx. Packages stay external and load from the project's node_modules. The file name
// hashes the entry's absolute path, so checkouts sharing one node_modules (git worktrees) never run
// each other's bundles. AHP_REFERENCE_BUNDLE_CACHE overrides the cache directory; it must lie inside
// the project (or beside its node_modules), where the bundle's package imports resolve.

import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Bumped whenever the bundle options or the cache file's layout change, so older files are rebuilt. */
const FORMAT = 'reference-bundle/2';
const LAUNCHER = fileURLToPath(import.meta.url);
const HERE = path.dirname(LAUNCHER);
const PROJECT_ROOT = path.resolve(HERE, '..', '..');
const CACHE_DIR = process.env.AHP_REFERENCE_BUNDLE_CACHE
  ? path.resolve(process.env.AHP_REFERENCE_BUNDLE_CACHE)
  : path.join(PROJECT_ROOT, 'node_modules', '.cache', 'ahp-conformance', 'reference-bundles');
const DAY_MS = 24 * 60 * 60 * 1000;
/** Cache files unused for this long (an old checkout's, an old format's) are removed on a rebuild. */
const RETENTION_MS = 14 * DAY_MS;

const [entryArg, ...args] = process.argv.slice(2);
if (!entryArg || !entryArg.endsWith('.ts')) {
  process.stderr.write('usage: node launch.mjs <entry>.ts [args...]\n');
  process.exit(2);
}
const entry = path.resolve(HERE, entryArg);
const name = path.relative(HERE, entry).replace(/[^A-Za-z0-9_.-]/g, '_').replace(/\.ts$/, '');
const bundleFile = path.join(CACHE_DIR, `${name}.${sha256(entry).slice(0, 12)}.mjs`);

function sha256(text) {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Whether the cache file is whole (its code matches the digest of its first line) and was built, in
 * this format and for this entry, from exactly the files as they are now.
 */
function isFresh() {
  let text;
  try {
    text = readFileSync(bundleFile, 'utf8');
  } catch {
    return false;
  }
  const newline = text.indexOf('\n');
  const prefix = `// ${FORMAT} `;
  if (newline < 0 || !text.startsWith(prefix)) return false;
  let stamps;
  try {
    stamps = JSON.parse(text.slice(prefix.length, newline));
  } catch {
    return false;
  }
  if (typeof stamps !== 'object' || stamps === null || stamps.entry !== entry || stamps.settled !== true) return false;
  if (typeof stamps.inputs !== 'object' || stamps.inputs === null || Object.keys(stamps.inputs).length === 0) return false;
  for (const [file, stamp] of Object.entries(stamps.inputs)) {
    try {
      const stats = statSync(file);
      if (!Array.isArray(stamp) || stats.mtimeMs !== stamp[0] || stats.size !== stamp[1]) return false;
    } catch {
      return false;
    }
  }
  if (sha256(text.slice(newline + 1)) !== stamps.sha256) return false;
  markUsed();
  return true;
}

/** Files that shape every bundle besides the sources esbuild reads. */
function toolInputs() {
  const projectRequire = createRequire(path.join(PROJECT_ROOT, 'package.json'));
  return [LAUNCHER, path.join(PROJECT_ROOT, 'tsconfig.json'), projectRequire.resolve('esbuild/package.json')];
}

async function rebuild() {
  const { build, stop } = await import('esbuild');
  const started = Date.now();
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: PROJECT_ROOT,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    keepNames: true,
    metafile: true,
    write: false,
    logLevel: 'silent',
    plugins: [ownImportMeta],
  }).finally(() => stop());
  const inputs = {};
  let settled = true;
  const files = [...Object.keys(result.metafile.inputs).map((relative) => path.resolve(PROJECT_ROOT, relative)), ...toolInputs()];
  for (const file of files) {
    const stats = statSync(file);
    inputs[file] = [stats.mtimeMs, stats.size];
    // Changed while we built: this bundle may hold the old text, so let the next start build again.
    if (stats.mtimeMs >= started - 1000) settled = false;
  }
  const code = result.outputFiles[0].text;
  const stamps = { entry, sha256: sha256(code), settled, inputs };
  writeAtomic(bundleFile, `// ${FORMAT} ${JSON.stringify(stamps)}\n${code}`);
  prune();
}

/** Concurrent starts may rebuild at once: each writes a private file and renames it into place. */
function writeAtomic(file, contents) {
  mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    writeFileSync(temp, contents);
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** Refresh the cache file's modification time (at most daily) so that pruning sees it in use. */
function markUsed() {
  try {
    const now = Date.now();
    if (now - statSync(bundleFile).mtimeMs > DAY_MS) utimesSync(bundleFile, new Date(now), new Date(now));
  } catch {
    // best effort
  }
}

/** Removes temp files abandoned by crashed starts and cache files unused for RETENTION_MS. */
function prune() {
  const now = Date.now();
  for (const fileName of readdirSync(CACHE_DIR)) {
    const file = path.join(CACHE_DIR, fileName);
    try {
      if (now - statSync(file).mtimeMs > (fileName.endsWith('.tmp') ? 60 * 60 * 1000 : RETENTION_MS)) rmSync(file, { force: true });
    } catch {
      // another start may have removed it already
    }
  }
}

/** esbuild plugin: `import.meta.url` (and dirname/filename) of each project module stay its own. */
const ownImportMeta = {
  name: 'own-import-meta',
  setup(builder) {
    builder.onLoad({ filter: /\.[cm]?[jt]s$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const source = await readFile(args.path, 'utf8');
      if (!source.includes('import.meta.')) return undefined;
      const contents = source
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(args.path)))
        .replaceAll('import.meta.filename', JSON.stringify(args.path));
      return { contents, loader: /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js' };
    });
  },
};

if (!isFresh()) await rebuild();
// The entry reads its arguments as if it had been started directly.
process.argv = [process.argv[0], entry, ...args];
await import(pathToFileURL(bundleFile).href);
