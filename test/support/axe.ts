// axe-core in real Chromium: the serious and critical findings on a page as it is now. Injected over the
// DevTools protocol, so the page's CSP (no inline script) does not block it and stays as served.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

export async function axeFindings(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document) => Promise<{ violations: unknown[] }> } })
      .axe;
    return (await axe.run(document)).violations;
  });
  return (violations as AxeViolation[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`);
}

/**
 * A dashboard screen as every suite checks it: no serious/critical axe finding, nothing wider than the viewport
 * (wide tables scroll inside their own box), the page itself never scrolling sideways (overflowing text is no
 * element box), and a full-page screenshot at phone (390 px) and desktop (1280 px) widths into `shotsDir`.
 */
export async function checkScreen(page: Page, name: string, shotsDir: string): Promise<void> {
  expect(await axeFindings(page), `axe on ${name}`).toEqual([]);
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    const wide = await page.evaluate(
      (w) =>
        Array.from(document.querySelectorAll('body *'))
          .filter((e) => e.getBoundingClientRect().right > w + 1 && !e.closest('.d-table-wrap, .d-nav'))
          .map((e) => `${e.tagName}.${e.className}`),
      width,
    );
    expect(wide, `${name} at ${width}px`).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} at ${width}px`).toBe(
      width,
    );
    await page.screenshot({ path: `${shotsDir}/${name}-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}
