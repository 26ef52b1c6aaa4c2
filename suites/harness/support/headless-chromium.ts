// Debian's Chromium (/usr/bin/chromium, installed by .ci/run), driven by playwright-core: never a
// downloaded browser. Every launch gets a fresh profile directory, removed on close, and flags that
// keep the browser from calling home (no background networking, component updates, sync or QUIC),
// so a test that counts the page's requests sees only the page's own.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.AHP_CHROMIUM || '/usr/bin/chromium';

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Why the browser tests cannot run here, or undefined when they can. */
export function chromiumMissing(): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `no Chromium at ${CHROMIUM} (.ci/run installs Debian's chromium; set AHP_CHROMIUM to use another binary)`;
}

export interface OpenBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A headless Chromium with a fresh profile; `close` ends it and removes the profile. */
export async function launchChromium(viewport = { width: 1280, height: 900 }): Promise<OpenBrowser> {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'ahp-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport, timeout: 30_000 });
    return {
      context,
      close: async () => {
        try {
          await context.close();
        } finally {
          rmSync(profile, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
}
