// Starts one entry point of the reference adapter from a bundle cached on disk:
//
//   node launch.mjs client.ts --config CONFIG.json
//
// behaves exactly like `node --import tsx client.ts --config CONFIG.json`, but starts in about a
// third of the time. tsx resolves and transpiles each of the ~90 modules through loader hooks on a
// separate thread, which cost every adapter process ~250 ms before it did anything — paid by every
// client run, every stdio server spawn and every watch-mode rerun. The bundle is rebuilt (esbuild,
// a few tens of ms) whenever any file it was built from changed, so editing the adapter or the harness
// modules it uses takes effect on the next start, as with tsx.
//
// Each module keeps its own `import.meta.url` (a bundle would otherwise give every module the bundle's
// location), so paths the adapter derives from it — the project root, schemas, fixtures — are the
// same as under tsx. Packages stay external and load from the project's node_modules.

import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Bumped whenever the bundle options change, so older cached bundles are rebuilt. */
const FORMAT = 'reference-bundle/1';
const HERE = path.dirname(fileURLToPath(import.meta.url));
const PROJECT_ROOT = path.resolve(HERE, '..', '..');
const CACHE_DIR = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'ahp-conformance', 'reference-bundles');

const [entryArg, ...args] = process.argv.slice(2);
if (!entryArg || !entryArg.endsWith('.ts')) {
  process.stderr.write('usage: node launch.mjs <entry>.ts [args...]\n');
  process.exit(2);
}
const entry = path.resolve(HERE, entryArg);
const name = path.relative(HERE, entry).replace(/[^A-Za-z0-9_.-]/g, '_').replace(/\.ts$/, '');
const bundleFile = path.join(CACHE_DIR, `${name}.mjs`);
const inputsFile = path.join(CACHE_DIR, `${name}.inputs.json`);

/** Whether the cached bundle was built, in this format, from exactly the files as they are now. */
function isFresh() {
  let recorded;
  try {
    recorded = JSON.parse(readFileSync(inputsFile, 'utf8'));
    statSync(bundleFile);
  } catch {
    return false;
  }
  if (recorded.format !== FORMAT || !recorded.inputs || typeof recorded.inputs !== 'object') return false;
  for (const [file, stamp] of Object.entries(recorded.inputs)) {
    try {
      const stats = statSync(file);
      if (stats.mtimeMs !== stamp[0] || stats.size !== stamp[1]) return false;
    } catch {
      return false;
    }
  }
  return true;
}

async function rebuild() {
  const { build, stop } = await import('esbuild');
  const started = Date.now();
  const result = await build({
    entryPoints: [entry],
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
  for (const relative of Object.keys(result.metafile.inputs)) {
    const file = path.resolve(relative);
    const stats = statSync(file);
    inputs[file] = [stats.mtimeMs, stats.size];
    // Changed while we built: this bundle may hold the old text, so let the next start build again.
    if (stats.mtimeMs >= started - 1000) settled = false;
  }
  mkdirSync(CACHE_DIR, { recursive: true });
  writeAtomic(bundleFile, result.outputFiles[0].contents);
  if (settled) writeAtomic(inputsFile, `${JSON.stringify({ format: FORMAT, inputs })}\n`);
}

/** Concurrent starts may rebuild at once: each writes a private file and renames it into place. */
function writeAtomic(file, contents) {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, contents);
  renameSync(temp, file);
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
