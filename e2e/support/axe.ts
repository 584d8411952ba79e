// axe-core injected into the page (its source from the npm package; no @axe-core/playwright needed).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
}

/** Runs axe-core on the page as it is now. */
export async function runAxe(page: Page): Promise<{ violations: AxeViolation[] }> {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run();
    return { violations: result.violations.map(({ id, impact, help }) => ({ id, impact, help })) };
  });
}
