// Debian's Chromium through playwright-core (never a downloaded browser), for the end-to-end suites and the web
// benchmark. A separate entry point (`@app/test-kit/chromium`), so suites without a browser never load playwright.
import { type Browser, chromium } from 'playwright-core';

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
    ],
  });
}
