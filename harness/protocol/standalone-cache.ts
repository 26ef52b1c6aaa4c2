// Compiled ajv validators cached across processes as ajv "standalone" CommonJS modules, so that a
// process whose schemas did not change loads generated code in milliseconds instead of importing ajv
// and compiling. Each kind of validator has its own directory under
// node_modules/.cache/ahp-conformance/ and names its modules `<key>.cjs`, where the key hashes every
// input of the compile (schema text, ajv options, toolchain versions), so a changed input is never
// served from a stale module. A module records its format, its key and a digest of its code, all
// checked before it is loaded. Shared by load-validators.ts (the protocol schema sets) and
// scenarios/format-schema.ts (the scenario file formats).

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import type Ajv2020Module from 'ajv/dist/2020.js';
import type standaloneModule from 'ajv/dist/standalone/index.js';
import type addFormatsModule from 'ajv-formats';

import { sha256Hex } from './sha256-hex.ts';

export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The cache directory of one kind of validator module. */
export function standaloneCacheDir(kind: string): string {
  return path.join(PROJECT_ROOT, 'node_modules', '.cache', 'ahp-conformance', kind);
}

const projectRequire = createRequire(path.join(PROJECT_ROOT, 'package.json'));

// ajv itself is only needed to compile (a cache miss): loading it costs every process ~50 ms, and
// most processes only load a cached standalone module.
export interface AjvModules {
  Ajv2020: typeof Ajv2020Module.default;
  standaloneCode: typeof standaloneModule.default;
  addFormats: typeof addFormatsModule.default;
}
let ajvModules: AjvModules | undefined;

/** ajv's compiler, standalone code generator and ajv-formats, loaded on first use. */
export function ajv(): AjvModules {
  ajvModules ??= {
    Ajv2020: (projectRequire('ajv/dist/2020.js') as typeof Ajv2020Module).default,
    standaloneCode: (projectRequire('ajv/dist/standalone/index.js') as typeof standaloneModule).default,
    addFormats: (projectRequire('ajv-formats') as typeof addFormatsModule).default,
  };
  return ajvModules;
}

/** The installed version of a project dependency, for cache keys. */
export function packageVersion(name: string): string {
  const manifest = projectRequire(`${name}/package.json`) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : 'unknown';
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Cache modules unused for this long are removed when a new one is written. */
const CACHE_RETENTION_MS = 14 * DAY_MS;
const HEADER_PATTERN = /^\/\/ (\S+) key=([0-9a-f]+) sha256=([0-9a-f]{64})\n/;

/**
 * The exports of the cache module `cacheFile` when it was written in `format` for `key` and its code
 * is intact; null when it is missing, stale, tampered with or fails to load.
 */
export function readCacheModule(cacheFile: string, format: string, key: string): Record<string, unknown> | null {
  let text: string;
  try {
    text = fs.readFileSync(cacheFile, 'utf8');
  } catch {
    return null;
  }
  const header = HEADER_PATTERN.exec(text);
  if (!header || header[1] !== format || header[2] !== key) return null;
  const body = text.slice(header[0].length);
  if (sha256Hex(body) !== header[3]) return null;
  markUsed(cacheFile);
  try {
    const requireFromCache = createRequire(cacheFile);
    delete requireFromCache.cache[cacheFile];
    const loaded = requireFromCache(cacheFile) as unknown;
    return (typeof loaded === 'object' || typeof loaded === 'function') && loaded !== null ? (loaded as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Writes the module `generate()` returns (ajv standalone code) as `cacheFile` through a private temp
 * file and a rename, so concurrent writers and readers only ever see whole modules, then prunes the
 * directory. Best effort: an unwritable directory or a failed generation leaves no file behind.
 */
export function writeCacheModule(cacheFile: string, format: string, key: string, generate: () => string): void {
  const temp = `${cacheFile}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const body = `'use strict';\n${generate()}\n`;
    fs.mkdirSync(path.dirname(cacheFile), { recursive: true });
    fs.writeFileSync(temp, `// ${format} key=${key} sha256=${sha256Hex(body)}\n${body}`);
    fs.renameSync(temp, cacheFile);
    pruneCache(path.dirname(cacheFile), cacheFile);
  } catch {
    // Not writable (or generation failed): the caller keeps its in-memory validators.
    try {
      fs.rmSync(temp, { force: true });
    } catch {
      // nothing to clean up
    }
  }
}

/** Refresh the modification time (at most daily) so that pruning sees the module as in use. */
function markUsed(cacheFile: string): void {
  try {
    const now = Date.now();
    if (now - fs.statSync(cacheFile).mtimeMs > DAY_MS) fs.utimesSync(cacheFile, new Date(now), new Date(now));
  } catch {
    // best effort
  }
}

/** Remove cache modules unused for CACHE_RETENTION_MS and temp files abandoned by crashed writers. */
function pruneCache(cacheDir: string, keep: string): void {
  const now = Date.now();
  for (const name of fs.readdirSync(cacheDir)) {
    const file = path.join(cacheDir, name);
    if (file === keep) continue;
    const limit = name.endsWith('.tmp') ? 60 * 60 * 1000 : name.endsWith('.cjs') ? CACHE_RETENTION_MS : null;
    if (limit === null) continue;
    try {
      if (now - fs.statSync(file).mtimeMs > limit) fs.rmSync(file, { force: true });
    } catch {
      // another process may have removed it already
    }
  }
}
