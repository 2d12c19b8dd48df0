/**
 * The board in a real browser: racewire in-process on a fast simulator, Debian's Chromium through
 * playwright-core. A scripted scratching and result must reach the page. Screenshots go to test-artifacts/.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2eRacewire, pickOpenRace, startE2e } from './harness.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = 'test-artifacts';
const skip = !existsSync(CHROMIUM) && !process.env.CI;
if (skip) console.warn(`board browser test skipped: ${CHROMIUM} is absent (install chromium; CI must)`);

describe.skipIf(skip)('the live board in a browser', () => {
  let e2e: E2eRacewire;
  let browser: Browser;

  beforeAll(async () => {
    [e2e, browser] = await Promise.all([
      startE2e({ MARKET_DATA: 'always' }),
      chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      }),
    ]);
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await e2e?.stop();
  });

  /** Uncaught exceptions and every console error (a failed request, a missing icon or silk, ...). */
  const errorsOf = (page: Page) => {
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(`${msg.text()} (${msg.location().url})`);
    });
    return errors;
  };

  it('flashes a moved price, strikes through a scratching and shows results and dividends as they happen', async () => {
    const { raceId } = await pickOpenRace(e2e);
    const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
    const errors = errorsOf(page);
    await page.goto(e2e.url);
    await page.locator(`[data-testid="race-link"][data-race-id="${raceId}"]`).click();
    await page.locator('[data-testid="runner"]').first().waitFor({ timeout: 10_000 });
    await expect
      .poll(() => page.locator('[data-testid="connection"]').getAttribute('data-state'))
      .toBe('live');

    const world = e2e.simulator.world;
    const runners = world.raceView(raceId).runners.filter((r) => !r.scratched);
    const mover = runners[1]!;
    world.moveOdds(raceId, mover.entrantId, Math.max(1.5, Math.round(mover.fixedWin * 70) / 100));
    const moverWin = page.locator(
      `[data-testid="runner"][data-entrant-id="${mover.entrantId}"] td.fixed_win`,
    );
    await expect.poll(() => moverWin.getAttribute('class'), { timeout: 10_000 }).toMatch(/flash-(down|up)/);
    // The market panel: each runner's money share, and the scripted 30 % firm as a plunge.
    await expect
      .poll(() => page.locator('[data-testid="money-share"]').count(), { timeout: 10_000 })
      .toBe(runners.length);
    const plunge = page.locator('[data-testid="price-move"]').first();
    await expect.poll(() => plunge.textContent(), { timeout: 10_000 }).toContain(`↘ #${mover.runnerNumber} `);

    const victim = runners[0]!;
    world.scratch(raceId, victim.entrantId);
    const scratchedRow = page.locator(`[data-testid="runner"][data-entrant-id="${victim.entrantId}"]`);
    await expect.poll(() => scratchedRow.getAttribute('data-scratched'), { timeout: 10_000 }).toBe('true');
    const decoration = await scratchedRow
      .locator('[data-testid="runner-name"]')
      .evaluate((el) => getComputedStyle(el).textDecorationLine);
    expect(decoration).toBe('line-through');

    const placings = runners.slice(1, 5).map((r) => r.entrantId);
    world.setStatus(raceId, 'Interim');
    world.setResults(raceId, placings);
    const results = page.locator('[data-testid="result"]');
    await expect.poll(() => results.count(), { timeout: 10_000 }).toBe(placings.length);
    expect(await results.evaluateAll((els) => els.map((el) => el.getAttribute('data-entrant-id')))).toEqual(
      placings,
    );
    await expect.poll(() => page.locator('[data-testid="race-status"]').textContent()).toBe('Interim');
    // Closed: the header says who started, not how many are still running.
    expect(await page.locator('[data-testid="race-head"] .facts').textContent()).toContain(
      `${runners.length - 1} starters, `,
    );
    await page
      .locator('[data-testid="dividend"][data-status="Interim"]')
      .first()
      .waitFor({ timeout: 10_000 });
    await page.locator('[data-testid="feed-item"][data-type="runner.scratched"]').first().waitFor();

    // The operations panel says what the budget is for, and judges the race's data age against the plan.
    expect(await page.locator('[data-testid="ops-budget-purpose"]').textContent()).toMatch(
      /^\d+ requests a minute of racewire's clock \(×\d+: \d+ a real minute\); about \d+ to list the meetings, the rest for races\.$/,
    );
    expect(await page.locator('[data-testid="ops-budget"]').getAttribute('data-state')).toBe('ok');
    await expect
      .poll(() => page.locator('[data-testid="ops-race-stale"] .stat-value').textContent())
      .toMatch(/ \/ \d+s$/);

    await page.screenshot({ path: `${ARTIFACTS}/board.png`, fullPage: true });

    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
    const phoneErrors = errorsOf(phone);
    await phone.goto(`${e2e.url}/#race=${raceId}`);
    await phone.locator('[data-testid="result"]').first().waitFor({ timeout: 10_000 });
    // Opened after the scratching: its feed starts with the recent events, the scratching among them.
    await phone
      .locator(`[data-testid="feed-item"][data-type="runner.scratched"][data-id^="${raceId}:"]`)
      .first()
      .waitFor({ state: 'attached', timeout: 10_000 });
    await phone.screenshot({ path: `${ARTIFACTS}/board-phone.png`, fullPage: true });

    expect(errors).toEqual([]);
    expect(phoneErrors).toEqual([]);
    // Two pages and a race from Open to Interim through a real browser: half a minute on a quiet machine.
  }, 90_000);
});
