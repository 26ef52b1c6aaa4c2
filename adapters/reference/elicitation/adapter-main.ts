// The elicitation adapter's one entry: parse the mode, select the binding, run the mode, exit with
// its code. Each mode is loaded on demand, so the sender (started once per step, hundreds of times
// per pair) never loads ajv or the receiver. Lying fakes call this with one flaw; the reference
// entry (../elicitation.ts) calls it with none.

import { createLog, errorText, keepStdoutForProtocol } from '../lib/log.ts';
import { BindingError, bindingFromEnvironment, type ElicitationBinding } from './binding.ts';
import type { CheckFlaws } from './check-mode.ts';
import type { ClientFlaws } from './client-mode.ts';
import { parseModeArguments } from './mode-arguments.ts';
import type { ServerFlaws } from './server-mode.ts';

export interface ElicitationFlaws {
  server?: ServerFlaws;
  check?: CheckFlaws;
  client?: ClientFlaws;
}

export function runElicitationAdapter(args: readonly string[], flaws: ElicitationFlaws = {}): void {
  keepStdoutForProtocol();
  const parsed = parseModeArguments(args);
  const log = createLog(`elicitation-${'mode' in parsed ? parsed.mode : 'adapter'}`);
  if ('error' in parsed) {
    log.error(parsed.error);
    process.exit(2);
  }
  let binding: ElicitationBinding;
  try {
    binding = bindingFromEnvironment(process.env);
  } catch (error) {
    if (!(error instanceof BindingError)) throw error;
    log.error(error.message);
    process.exit(2);
  }
  const run = async (): Promise<number | undefined> => {
    if (parsed.mode === 'client') {
      const { runClientMode } = await import('./client-mode.ts');
      return runClientMode({ binding, log, flaws: flaws.client ?? {} });
    }
    if (parsed.mode === 'check') {
      const { runCheckMode } = await import('./check-mode.ts');
      await runCheckMode({ ...parsed, binding, log, flaws: flaws.check ?? {} });
      return 0;
    }
    const { runServerMode } = await import('./server-mode.ts');
    await runServerMode({ ...parsed, binding, log, flaws: flaws.server ?? {} });
    return undefined; // keeps running until a signal
  };
  run().then(
    (code) => {
      if (code !== undefined) process.stdout.write('', () => process.exit(code));
    },
    (error: unknown) => {
      log.error(`failed: ${errorText(error)}`);
      process.exit(1);
    },
  );
}
