// Where the reference adapter finds the project it is embedded in.

import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The ahp-conformance checkout root (adapters/reference/lib → three levels up). */
export const PROJECT_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The project's draft schemas, used unless a config names another directory (`schemaDir`). */
export const DEFAULT_SCHEMA_DIR = path.join(PROJECT_ROOT, 'schemas');

/** The reported language of this adapter (must match interop/adapter.json). */
export const ADAPTER_LANGUAGE = 'typescript';
