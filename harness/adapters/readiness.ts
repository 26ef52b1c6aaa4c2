// Waits for a server's readiness file `{endpoint, controlEndpoint, pid}` under the startup watchdog.
//
// Detection: fs.watch on the file's directory (fast path) plus a bounded poll fallback (fs.watch
// is not reliable on every filesystem). Both only trigger a re-read; the result is decided by the
// file content.
//
// Half-written files: the contract requires servers to write the file atomically (write a temp file,
// rename). A complete file that is not valid JSON is therefore an error. Because a non-atomic writer
// can briefly expose an empty or partial file, a parse failure is not final immediately: the file is
// re-read, and only if its content stays the same for `settleMs` is it reported as garbled. A file
// that keeps changing keeps being retried until the watchdog fires. Valid JSON is always final (a
// truncated JSON object is never valid JSON), so wrong fields are reported at once.

import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { describeValue as describe, parseJsonText } from '../protocol/json-text.ts';
import type { ProcessExit } from './launch.ts';
import type { Readiness } from './types.ts';

export type ReadinessFailure = 'timeout' | 'exited' | 'garbled' | 'invalid';

export class ReadinessError extends Error {
  override readonly name = 'ReadinessError';
  constructor(
    readonly kind: ReadinessFailure,
    readonly file: string,
    /** The offending field for kind "invalid" (`pid`, `controlEndpoint`, ...); '' otherwise. */
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

export interface WaitForReadinessOptions {
  /** The startup watchdog. */
  timeoutMs: number;
  /** Settles when the server process exits; an exit before readiness is an error. */
  exited?: Promise<ProcessExit>;
  /** The server's captured output, named in failure messages (never quoted). */
  logFile?: string;
  /** How long a garbled file must stay unchanged before it is an error. Default 250 ms. */
  settleMs?: number;
  /** Poll fallback interval. Default 50 ms. */
  pollMs?: number;
}

export function waitForReadiness(file: string, options: WaitForReadinessOptions): Promise<Readiness> {
  const { timeoutMs, logFile } = options;
  const settleMs = options.settleMs ?? 250;
  const pollMs = options.pollMs ?? 50;
  const seeLog = logFile ? `; see the server log ${logFile}` : '';

  return new Promise<Readiness>((resolve, reject) => {
    let done = false;
    let watcher: FSWatcher | undefined;
    let garbled: { text: string; since: number; where: string } | undefined;
    let reading = false;
    let again = false;

    const finish = (error: Error | undefined, value?: Readiness): void => {
      if (done) return;
      done = true;
      clearTimeout(watchdog);
      clearInterval(poll);
      watcher?.close();
      if (error) reject(error);
      else resolve(value!);
    };

    const check = async (): Promise<void> => {
      if (done) return;
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      try {
        let text: string;
        try {
          text = await readFile(file, 'utf8');
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code !== 'ENOENT') {
            finish(new ReadinessError('garbled', file, '', `startup: cannot read readiness file ${file} (${code ?? String(error)})${seeLog}`));
          }
          return;
        }
        const parsed = parseJsonText(text);
        if (!parsed.ok) {
          if (garbled === undefined || garbled.text !== text) {
            garbled = { text, since: Date.now(), where: parsed.where };
          } else if (Date.now() - garbled.since >= settleMs) {
            finish(
              new ReadinessError(
                'garbled',
                file,
                '',
                `startup: readiness file ${file} is not valid JSON ${parsed.where} (${parsed.reason}); ` +
                  `servers must write it atomically as {"endpoint", "controlEndpoint", "pid"}${seeLog}`,
              ),
            );
          }
          return;
        }
        try {
          finish(undefined, validateReadiness(parsed.value, file));
        } catch (error) {
          finish(error as Error);
        }
      } finally {
        reading = false;
        if (again && !done) {
          again = false;
          void check();
        }
      }
    };

    const watchdog = setTimeout(() => {
      finish(
        new ReadinessError(
          'timeout',
          file,
          '',
          `startup: watchdog fired after ${timeoutMs} ms: readiness file ${file} ` +
            `${garbled ? 'never became valid JSON' : 'was not written'}${seeLog}`,
        ),
      );
    }, timeoutMs);
    const poll = setInterval(() => void check(), pollMs);
    try {
      watcher = watch(path.dirname(file), () => void check());
      watcher.on('error', () => undefined);
    } catch {
      // directory not watchable: the poll covers it
    }
    options.exited?.then((exit) => {
      if (done) return;
      const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
      finish(new ReadinessError('exited', file, '', `startup: the server ${how} before writing readiness file ${file}${seeLog}`));
    });
    void check();
  });
}

/** Checks a parsed readiness value. Throws ReadinessError (kind "invalid") naming the field. */
export function validateReadiness(value: unknown, file: string): Readiness {
  const fail = (field: string, expectation: string, got: unknown): never => {
    throw new ReadinessError(
      'invalid',
      file,
      field,
      `startup: readiness file ${file}: ${field ? `${field}: ` : ''}expected ${expectation}, got ${describe(got)}`,
    );
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail('', 'a JSON object {"endpoint", "controlEndpoint", "pid"}', value);
  }
  const raw = value as Record<string, unknown>;

  const endpoint = raw.endpoint === undefined ? null : raw.endpoint;
  if (endpoint !== null && (typeof endpoint !== 'string' || !isUrl(endpoint, ['http:', 'https:']))) {
    fail('endpoint', 'an http(s) URL string, or null for stdio servers', raw.endpoint);
  }
  if (typeof raw.controlEndpoint !== 'string' || !isUrl(raw.controlEndpoint, ['http:'])) {
    fail('controlEndpoint', 'an http:// URL string (the control server)', raw.controlEndpoint);
  }
  if (typeof raw.pid !== 'number' || !Number.isInteger(raw.pid) || raw.pid <= 0) {
    fail('pid', 'a positive integer', raw.pid);
  }
  // Extra fields are allowed (SDK servers add their own, core servers too) and never fail readiness;
  // the lifecycle harness, which needs the upload URL, checks `uploadEndpoint` itself.
  return {
    endpoint: endpoint as string | null,
    controlEndpoint: raw.controlEndpoint as string,
    pid: raw.pid as number,
    ...(typeof raw.uploadEndpoint === 'string' && isUrl(raw.uploadEndpoint, ['http:', 'https:']) ? { uploadEndpoint: raw.uploadEndpoint } : {}),
  };
}

function isUrl(text: string, protocols: string[]): boolean {
  try {
    return protocols.includes(new URL(text).protocol);
  } catch {
    return false;
  }
}
