// `npm run report -- <reports dir or page report>... [--compare <previous dir or JSON>] [--out <dir>]`
// rebuilds reports/index.html (and requirements.md/.json) from the page reports alone, e.g. from
// the reports directories of several shards. A missing or broken file is an error naming it.

import path from 'node:path';

import { comparisonLines } from './compare-runs.ts';
import { PageReportError } from './page-report.ts';
import { loadPageReports, writePage } from './write-page.ts';

const USAGE = 'usage: npm run report -- <reports dir or <project>-page.json>... [--compare <previous reports dir or JSON>] [--out <dir>]';

function main(args: string[]): number {
  const inputs: string[] = [];
  let compare: string | undefined;
  let out: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--compare' || arg === '--out') {
      const value = args[++i];
      if (value === undefined) return fail(`${arg} needs a path\n${USAGE}`);
      if (arg === '--compare') compare = path.resolve(value);
      else out = path.resolve(value);
    } else if (arg.startsWith('--')) return fail(`unknown option ${arg}\n${USAGE}`);
    else inputs.push(path.resolve(arg));
  }
  if (inputs.length === 0) return fail(USAGE);
  try {
    const reports = loadPageReports(inputs);
    const first = inputs[0]!;
    const outDir = out ?? (first.endsWith('.json') ? path.dirname(first) : first);
    const written = writePage(outDir, reports, compare);
    process.stdout.write(`wrote ${written.page} (${reports.map((report) => report.project).join(', ')}) and requirements.md/.json beside it\n`);
    if (written.comparison) process.stdout.write(`${comparisonLines(written.comparison).join('\n')}\n`);
    return 0;
  } catch (error) {
    if (error instanceof PageReportError) return fail(error.message);
    throw error;
  }
}

function fail(message: string): number {
  process.stderr.write(`${message}\n`);
  return 1;
}

process.exitCode = main(process.argv.slice(2));
