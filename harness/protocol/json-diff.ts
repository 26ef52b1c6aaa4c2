// Where two JSON values differ, as short path-level lines a person can act on: `removed
// result.futureMetadata`, `added vendor`, `changed result.effects[0].type from "deny" to "allow"`.
// Object key order never matters (as in jsonEqual); arrays compare index by index. Used by failure
// messages that must say exactly how a server altered a scripted message.

import { isJsonObject, jsonEqual } from './json.ts';

export interface JsonDiffOptions {
  /** At most this many lines; a last line says how many more differences there are. Default 8. */
  maxLines?: number;
  /** Rendered values are cut to this many characters. Default 60. */
  maxValueChars?: number;
}

/** Empty when the values are JSON-equal. */
export function jsonDiff(expected: unknown, actual: unknown, options: JsonDiffOptions = {}): string[] {
  const lines: string[] = [];
  const maxValueChars = options.maxValueChars ?? 60;
  const show = (value: unknown): string => {
    const text = value === undefined ? 'undefined' : JSON.stringify(value);
    return text.length > maxValueChars ? `${text.slice(0, maxValueChars - 1)}…` : text;
  };
  walk(expected, actual, '', lines, show);
  const maxLines = options.maxLines ?? 8;
  if (lines.length <= maxLines) return lines;
  return [...lines.slice(0, maxLines), `… and ${lines.length - maxLines} more difference(s)`];
}

function walk(expected: unknown, actual: unknown, at: string, lines: string[], show: (value: unknown) => string): void {
  if (jsonEqual(expected, actual)) return;
  if (isJsonObject(expected) && isJsonObject(actual)) {
    for (const key of Object.keys(expected)) {
      const child = join(at, key);
      if (!Object.prototype.hasOwnProperty.call(actual, key)) lines.push(`removed ${child}`);
      else walk(expected[key], actual[key], child, lines, show);
    }
    for (const key of Object.keys(actual)) {
      if (!Object.prototype.hasOwnProperty.call(expected, key)) lines.push(`added ${join(at, key)} = ${show(actual[key])}`);
    }
    return;
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const shared = Math.min(expected.length, actual.length);
    for (let i = 0; i < shared; i++) walk(expected[i], actual[i], `${at}[${i}]`, lines, show);
    for (let i = shared; i < expected.length; i++) lines.push(`removed ${at}[${i}]`);
    for (let i = shared; i < actual.length; i++) lines.push(`added ${at}[${i}] = ${show(actual[i])}`);
    return;
  }
  lines.push(`changed ${at === '' ? '(the whole value)' : at} from ${show(expected)} to ${show(actual)}`);
}

function join(at: string, key: string): string {
  const part = /^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(key) ? key : JSON.stringify(key);
  if (at === '') return /^[A-Za-z_$]/.test(part) ? part : `[${part}]`;
  return part.startsWith('"') ? `${at}[${part}]` : `${at}.${part}`;
}
