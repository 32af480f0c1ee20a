import { OPERATIONS } from '@invoicing/contracts';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveChromium } from '../../services/documents/src/modules/rendering/chromium-executable.ts';
import { startSystem, type TestSystem } from '../support/system.ts';

let system: TestSystem;
let browser: Browser;

beforeAll(async () => {
  const chromiumBinary = await resolveChromium(process.env.CHROMIUM_PATH);
  if (!chromiumBinary.found) throw new Error(`The /docs browser test needs a Chromium: ${chromiumBinary.reason}`);
  // The reference needs nothing behind the gateway: it reads the gateway's own document.
  system = await startSystem({ services: [] });
  browser = await chromium.launch({ executablePath: chromiumBinary.executablePath, args: ['--no-sandbox', '--disable-gpu'] });
});

afterAll(async () => {
  await browser?.close();
  await system?.stop();
});

describe('the API reference at /docs', () => {
  it('renders in headless Chromium without an API key, lists every operation, and loads nothing from elsewhere', async () => {
    const page = await browser.newPage();
    const origins = new Set<string>();
    page.on('request', (request) => void origins.add(new URL(request.url()).origin));

    const response = await page.goto(`${system.gatewayUrl}/docs`);
    expect(response?.status()).toBe(200);
    const lastOperation = OPERATIONS.at(-1)!;
    await page.getByText(lastOperation.summary, { exact: true }).first().waitFor({ timeout: 20_000 });

    const text = await page.locator('body').innerText();
    const missing = OPERATIONS.filter((operation) => !text.includes(operation.summary)).map((operation) => operation.operationId);
    expect(missing).toEqual([]);
    // Test mode and test clocks are explained where a reader starts: the introduction and the tag.
    expect(text).toContain('Test mode: every API key is live');
    expect(text).toContain('Test clocks move time forward for test data');
    expect([...origins]).toEqual([system.gatewayUrl]);
    await page.close();
  });
});
