// A server must hand every scripted response through unchanged, invalid ones included: the row tests
// whether the *client* rejects it. A server that answers with a JSON-RPC error envelope of its own
// instead has decided the row for the client (a client "rejects" any error), and the usual diff
// ("removed result; added error") hides what happened. This names it in plain words, and when the
// same run shows the server passing other invalid scripted responses through, says that the server
// tells rows apart — an SDK seen in the wild did so by scenario id, which blind mode renames.

import { isJsonObject, jsonEqual } from '../../../protocol/json.ts';

/** How much of each response a message quotes, so a huge body cannot flood a verdict. */
const SHOWN_CHARS = 300;

export interface OwnErrorEnvelope {
  code: number;
  message: string | undefined;
}

/**
 * The error of `handed` when it is a JSON-RPC error envelope (an `error` object with a numeric
 * `code`) that is not the scripted response itself; undefined otherwise.
 */
export function ownErrorEnvelope(scripted: unknown, handed: unknown): OwnErrorEnvelope | undefined {
  if (jsonEqual(scripted, handed) || !isJsonObject(handed) || !isJsonObject(handed.error)) return undefined;
  const { code, message } = handed.error;
  if (typeof code !== 'number') return undefined;
  return { code, message: typeof message === 'string' ? message : undefined };
}

export interface ReplacedResponse {
  server: string;
  /** The row's scenario id, as shown to the user. */
  scenarioId: string;
  scripted: unknown;
  handed: unknown;
  error: OwnErrorEnvelope;
  /** E.g. ` (server process #2)`, or ''. */
  where: string;
  /** The HTTP status it came with, when not 200. */
  status?: number;
  /** Other rows of the run whose invalid scripted response the server did hand through unchanged. */
  invalidPassedThrough: number;
}

/** The verdict sentence for a replaced response: what the server did, the evidence, and what it suggests. */
export function replacedResponseMessage(r: ReplacedResponse): string {
  const error = `error ${r.error.code}${r.error.message === undefined ? '' : ` ${JSON.stringify(shorten(r.error.message, 120))}`}`;
  const status = r.status === undefined ? '' : ` (with HTTP ${r.status}, not 200)`;
  const branching =
    r.invalidPassedThrough > 0
      ? `; in the same run it handed ${r.invalidPassedThrough} other invalid scripted response(s) through unchanged, so it treats invalid rows differently — by how they are invalid, or by scenario id (a blind run, AHP_BLIND=1, gives the server opaque ids and tells the two apart)`
      : '';
  return (
    `server "${r.server}" replaced the scripted response of "${r.scenarioId}" with its own error envelope (${error})${status}${r.where}; ` +
    `a server must hand every scripted response through unchanged, invalid ones included, so the client's handling of it was never tested${branching}. ` +
    `Scripted: ${quote(r.scripted)}; handed: ${quote(r.handed)}`
  );
}

function quote(value: unknown): string {
  return shorten(JSON.stringify(value) ?? 'nothing', SHOWN_CHARS);
}

function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}
