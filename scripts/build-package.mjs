// Builds what `npm pack` ships (run by the prepack script): dist/ holds the compiled JavaScript and
// declarations (tsconfig.build.json) in the source's layout, beside copies of what the compiled code
// reads at run time from the same relative places — the schemas, the generated scenario files and
// their format schemas, the plain .mjs helpers, and the reference adapter's adapter.json with its
// commands pointed at the compiled entry points (the source's launch.mjs bundles with esbuild, a
// development tool an installed package has not got). The checkout's own tests never read dist/.

import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const DIST = path.join(ROOT, 'dist');

rmSync(DIST, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', path.join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit', cwd: ROOT });

cpSync(path.join(ROOT, 'schemas'), path.join(DIST, 'schemas'), { recursive: true });
mkdirSync(path.join(DIST, 'fixtures'), { recursive: true });
for (const name of readdirSync(path.join(ROOT, 'fixtures'))) {
  if (name.endsWith('.json')) cpSync(path.join(ROOT, 'fixtures', name), path.join(DIST, 'fixtures', name));
}

// Plain .mjs modules (the supervisor, the stdio relay, ...) are not compiled; their imports of
// TypeScript siblings are pointed at the compiled files. The launcher is left out (see above).
for (const dir of ['harness', path.join('adapters', 'reference')]) {
  for (const file of walk(path.join(ROOT, dir))) {
    if (!/\.(mjs|d\.mts)$/.test(file) || file.endsWith(`${path.sep}launch.mjs`) || file.includes(`${path.sep}fuzz${path.sep}`)) continue;
    const out = path.join(DIST, path.relative(ROOT, file));
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, readFileSync(file, 'utf8').replace(/(['"])(\.{1,2}\/[^'"]*)\.ts\1/g, '$1$2.js$1'));
  }
}

const adapterFile = path.join('adapters', 'reference', 'interop', 'adapter.json');
const manifest = JSON.parse(readFileSync(path.join(ROOT, adapterFile), 'utf8'));
for (const [key, value] of Object.entries(manifest)) {
  if (Array.isArray(value) && value[0] === 'node' && value[1] === 'launch.mjs') manifest[key] = ['node', value[2].replace(/\.ts$/, '.js'), ...value.slice(3)];
}
mkdirSync(path.dirname(path.join(DIST, adapterFile)), { recursive: true });
writeFileSync(path.join(DIST, adapterFile), `${JSON.stringify(manifest)}\n`);

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) yield* walk(file);
    else yield file;
  }
}
