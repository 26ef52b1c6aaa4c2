// Diagnostics go to stderr only: in stdio mode stdout carries nothing but AHP lines.

export interface Log {
  info(message: string): void;
  error(message: string): void;
}

export function createLog(component: string): Log {
  const write = (level: string, message: string): void => {
    process.stderr.write(`[reference-${component}] ${level}: ${message}\n`);
  };
  return {
    info: (message) => write('info', message),
    error: (message) => write('error', message),
  };
}

/** Route stray console.log/info/debug output to stderr so nothing can ever pollute stdout. */
export function keepStdoutForProtocol(): void {
  const toStderr = (...args: unknown[]): void => {
    console.error(...args);
  };
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
