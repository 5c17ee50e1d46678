// The web view in a real browser: Debian's headless Chromium driven by playwright-core, over
// real HTTP, against a seeded brain on both databases. Loads every page, clicks from the
// overview to a card and through its history, checks that a body holding <script> is text,
// and saves a screenshot of each step under test-artifacts/view/ (gitignored).
//
// Without /usr/bin/chromium the suite is skipped with a message, except in CI (CI=true), where
// a missing browser fails: .ci/run installs it.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { seedBrain, SEEDED } from './seed.js';
import { viewFor, type ViewUnderTest } from './view-support.js';

const CHROMIUM = '/usr/bin/chromium';
const present = existsSync(CHROMIUM);
const inCi = process.env.CI === 'true';
const ARTIFACTS = new URL('../../test-artifacts/view/', import.meta.url).pathname;

if (!present && !inCi) {
  process.stderr.write(`test/view/browser.test.ts: skipped: ${CHROMIUM} is not installed (apt-get install -y --no-install-recommends chromium)\n`);
}

describe.runIf(!present && inCi)('web view in Chromium', () => {
  it(`needs ${CHROMIUM} in CI`, () => {
    throw new Error(`${CHROMIUM} is missing; .ci/run installs Debian's chromium before the tests`);
  });
});

describe.skipIf(!present)('web view in Chromium', () => {
  describeOnBothDatabases('browser', (brain, target) => {
    let v: ViewUnderTest;
    let base: string;
    let context: BrowserContext;
    let page: Page;
    let profile: string;
    const problems: string[] = [];
    const dir = join(ARTIFACTS, target);
    let shot = 0;
    const screenshot = async (name: string) => {
      await page.screenshot({ path: join(dir, `${String(++shot).padStart(2, '0')}-${name}.png`), fullPage: true });
    };

    beforeAll(async () => {
      await seedBrain(brain());
      v = await viewFor(brain());
      await v.app.listen({ host: '127.0.0.1', port: 0 });
      const address = v.app.server.address();
      base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      profile = mkdtempSync(join(tmpdir(), 'brain-view-chromium-'));
      context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
        viewport: { width: 1280, height: 900 },
      });
      page = context.pages()[0] ?? (await context.newPage());
      // A CSP violation or a failed request shows up here (the stylesheet must load under the policy).
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(`console: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
      page.on('response', (r) => {
        if (r.status() >= 400) problems.push(`${r.status()}: ${r.url()}`);
      });
    }, 120_000);

    afterAll(async () => {
      await context?.close();
      await v?.close();
      if (profile) rmSync(profile, { recursive: true, force: true });
    });

    it('loads every page with its stylesheet and no error', async () => {
      const paths = [
        '/',
        ...brain().config.subjects.map((s) => `/s/${s.name}`),
        '/s/homelab?kind=tool',
        '/s/homelab?q=backup',
        `/s/homelab/card/${SEEDED.nas}`,
        `/s/homelab/history/${SEEDED.nas}`,
        '/health',
        '/upcasts',
        '/outbox',
        '/outbox?only=flagged',
      ];
      expect(paths.length).toBeGreaterThan(8);
      const statuses: string[] = [];
      for (const path of paths) {
        const res = await page.goto(base + path);
        statuses.push(`${path} ${res?.status()}`);
        // The stylesheet applied: the header is laid out as flex by /assets/view.css.
        expect(await page.evaluate('getComputedStyle(document.querySelector("header")).display')).toBe('flex');
        await screenshot(path.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '') || 'overview');
      }
      expect(statuses.filter((s) => !s.endsWith(' 200'))).toEqual([]);
      expect(problems).toEqual([]);
    });

    it('clicks from the overview to a card and through its history', async () => {
      await page.goto(`${base}/`);
      await page.locator('article[data-subject="homelab"] h2 a').click();
      await page.waitForURL(`${base}/s/homelab`);
      await screenshot('click-subject');
      await page.getByRole('link', { name: 'The NAS (Synology)' }).click();
      await page.waitForURL(`${base}/s/homelab/card/${SEEDED.nas}`);
      expect(await page.locator('h1').textContent()).toBe('The NAS (Synology)');
      expect(await page.locator('#card-body').textContent()).toContain('Runs backups nightly at 03:00 now.');
      await screenshot('click-card');
      await page.getByRole('link', { name: 'v1', exact: true }).click();
      await page.waitForURL(`${base}/s/homelab/history/${SEEDED.nas}?v=1`);
      expect(await page.locator('section.version h2').textContent()).toContain('v1');
      await screenshot('click-v1');
      await page.getByRole('link', { name: 'v2 →' }).click();
      await page.waitForURL(`${base}/s/homelab/history/${SEEDED.nas}?v=2`);
      expect(await page.locator('pre.diff').textContent()).toContain('+ Runs **backups** nightly at 02:00.');
      await screenshot('click-v2');
      await page.getByRole('link', { name: 'v3 →' }).click();
      await page.waitForURL(`${base}/s/homelab/history/${SEEDED.nas}?v=3`);
      expect(await page.locator('pre.diff').textContent()).toContain('+ Runs backups nightly at 03:00 now.');
      expect(await page.locator('section.version').textContent()).toContain('moved the window');
      await screenshot('click-v3');
      await page.getByRole('link', { name: '← the card' }).click();
      await page.waitForURL(`${base}/s/homelab/card/${SEEDED.nas}`);
      expect(problems).toEqual([]);
    });

    it('a card whose body holds <script> shows it as text and runs nothing', async () => {
      await page.goto(`${base}/s/homelab/card/${SEEDED.script}`);
      const body = page.locator('#card-body');
      expect(await body.textContent()).toContain('<script>window.__pwned = true; document.title = "pwned"</script>');
      expect(await body.textContent()).toContain('<img src=x onerror="window.__pwned = true">');
      expect(await body.locator('script').count()).toBe(0);
      expect(await body.locator('img').count()).toBe(0);
      expect(await page.evaluate('typeof window.__pwned')).toBe('undefined');
      expect(await page.title()).toBe('A card with a script · claude-brain');
      await screenshot('script-card');
    });
  });
});
