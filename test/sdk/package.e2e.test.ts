/**
 * The SDK and the ticker as a user gets them: `npm pack` (which builds them), the tarballs installed in an
 * empty project, then plain `node` against a live racewire: the SDK README's example, a CommonJS require, the
 * `racewire-tail` bin, and the browser bundle in Chromium.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2eRacewire, pickOpenRace, runNode, startE2e, until } from '../e2e/harness.js';
import { browserMissing, CHROMIUM } from '../support/browser.js';

const run = promisify(execFile);
const noBrowser = browserMissing('the SDK browser bundle test');

/** The first ```js block of the SDK's README: the example users copy. */
function readmeExample(): string {
  const readme = readFileSync(new URL('../../clients/js/README.md', import.meta.url), 'utf8');
  const block = /```js\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error('clients/js/README.md has no ```js example');
  return block;
}

const start = (cwd: string, args: string[], env: Record<string, string> = {}) => runNode(args, { cwd, env });

describe('the packed SDK and ticker', () => {
  let e2e: E2eRacewire;
  let project: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    project = mkdtempSync(join(tmpdir(), 'racewire-pack-'));
    const [started] = await Promise.all([
      startE2e(),
      (async () => {
        const { stdout } = await run(
          'npm',
          ['pack', '--json', '-w', '@racewire/client', '-w', 'racewire-tail', '--pack-destination', project],
          { maxBuffer: 16 * 1024 * 1024 },
        );
        const tarballs = (JSON.parse(stdout) as { filename: string }[]).map((p) => join(project, p.filename));
        writeFileSync(join(project, 'package.json'), '{"name":"user-project","private":true}\n');
        await run(
          'npm',
          ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...tarballs, 'ws@8'],
          { cwd: project },
        );
      })(),
    ]);
    e2e = started;
  }, 180_000);

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await e2e?.stop();
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it('ships built JavaScript with declarations and no TypeScript to run', () => {
    const sdk = join(project, 'node_modules/@racewire/client');
    const pkg = JSON.parse(readFileSync(join(sdk, 'package.json'), 'utf8')) as {
      private?: boolean;
      license?: string;
      scripts?: Record<string, string>;
    };
    expect(pkg.private).toBeUndefined();
    expect(pkg.license).toBe('MIT');
    // Built when packed (prepack), so installing it runs nothing and npm has no install script to warn about.
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare'])
      expect(pkg.scripts?.[hook]).toBeUndefined();
    for (const file of [
      'index.js',
      'index.d.ts',
      'protocol.js',
      'protocol.d.ts',
      'dividends.js',
      'event-text.js',
      'event-text.d.ts',
      'racewire-client.browser.js',
    ]) {
      expect(existsSync(join(sdk, 'dist', file)), file).toBe(true);
    }
    expect(readFileSync(join(sdk, 'dist/index.js'), 'utf8')).not.toMatch(/from '\.\.\/\.\.\/\.\.\/src/);
  });

  it("runs the README's example with plain node: a live race document arrives", async () => {
    const { raceId, meetingId } = await pickOpenRace(e2e);
    writeFileSync(join(project, 'follow.mjs'), readmeExample());
    const example = start(project, ['follow.mjs', raceId, meetingId], {
      RACEWIRE_URL: `${e2e.url.replace('http', 'ws')}/ws`,
    });
    children.push(example.child);
    // The first snapshot may come before racewire has fetched the race (seq 0); the fetch follows.
    await until(
      () =>
        example
          .stdout()
          .split('\n')
          .find((l) => l.startsWith(`document ${raceId} `) && Number(l.split(' ')[2]) > 0),
      `a document of ${raceId} with data`,
      15_000,
    );
    example.child.kill('SIGTERM');
    await example.exit;
  }, 30_000);

  it('writes an event as text from @racewire/client/event-text with plain node', async () => {
    const script = `import { describeEvent, summaryLine } from '@racewire/client/event-text';
      const text = describeEvent({ id: 'r:1', type: 'runner.scratched', timestamp: '2026-11-26T00:00:00Z', stream: 'r',
        seq: 1, meetingId: 'm', raceId: 'r',
        data: { race: { meetingName: 'Awapuni', raceNumber: 3 }, runner: { runnerNumber: 4, name: 'Tickford' }, late: true } });
      console.log(text.where + ' | ' + summaryLine(text) + ' | ' + text.tone);`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: project });
    expect(stdout.trim()).toBe('Awapuni R3 | #4 Tickford scratched (late) | alert');
  });

  it('loads from CommonJS with require()', async () => {
    const { stdout } = await run(
      process.execPath,
      ['-e', "const c = require('@racewire/client'); console.log(typeof c.RacewireClient, c.SUBPROTOCOL)"],
      { cwd: project },
    );
    expect(stdout.trim()).toBe('function racewire.v1');
  });

  it('installs the racewire-tail bin: events only on stdout, the URL and reason when unreachable, 0 on Ctrl-C', async () => {
    const bin = join(project, 'node_modules/.bin/racewire-tail');
    const help = await run(bin, ['--help'], { cwd: project });
    expect(help.stdout).toContain('usage: racewire-tail');

    const { raceId } = await pickOpenRace(e2e);
    const tail = start(project, [bin, '--race', raceId, '--url', `${e2e.url.replace('http', 'ws')}/ws`]);
    children.push(tail.child);
    await until(() => tail.stderr().includes('connected to'), 'the ticker to connect', 15_000);
    const runner = e2e.simulator.world.raceView(raceId).runners.find((r) => !r.scratched)!;
    await until(
      async () => (await fetch(`${e2e.url}/v1/races/${raceId}`)).ok || undefined,
      'the race document',
    );
    e2e.simulator.world.scratch(raceId, runner.entrantId);
    await until(() => tail.stdout().includes('runner.scratched'), 'a runner.scratched line', 15_000);
    // The line is the SDK's text of the event.
    expect(tail.stdout()).toMatch(new RegExp(`runner\\.scratched +#${runner.runnerNumber} .*scratched`));
    for (const line of tail.stdout().trim().split('\n')) expect(line).toMatch(/^\d\d:\d\d:\d\d {2}/);
    tail.child.kill('SIGINT');
    expect(await tail.exit).toEqual({ code: 0, signal: null });

    // Nothing listens on port 9 (discard) here: the ticker says where and why, and keeps trying.
    const dead = start(project, [bin, '--url', 'ws://127.0.0.1:9/ws']);
    children.push(dead.child);
    await until(() => dead.stderr().includes('cannot connect'), 'the unreachable message', 15_000);
    expect(dead.stderr()).toContain(
      'cannot connect to ws://127.0.0.1:9/ws: connect ECONNREFUSED 127.0.0.1:9',
    );
    dead.child.kill('SIGINT');
    expect(await dead.exit).toEqual({ code: 0, signal: null });
    expect(dead.stdout()).toBe('');
  }, 45_000);

  it.skipIf(noBrowser)(
    'runs the browser bundle in Chromium: a live race document arrives',
    async () => {
      const { raceId } = await pickOpenRace(e2e);
      const bundle = readFileSync(
        join(project, 'node_modules/@racewire/client/dist/racewire-client.browser.js'),
        'utf8',
      );
      const wsUrl = `${e2e.url.replace('http', 'ws')}/ws`;
      let site: Server | undefined;
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
      });
      try {
        const page = await browser.newPage();
        const errors: string[] = [];
        page.on('pageerror', (err) => errors.push(err.message));
        page.on('console', (msg) => {
          if (msg.type() === 'error') errors.push(msg.text());
        });
        // A static site on loopback (a page served from memory would count as public, and Chromium's local
        // network access checks would then block its WebSocket to 127.0.0.1).
        const html = `<!doctype html><title>sdk</title><script type="module">
          import { RacewireClient } from './racewire-client.browser.js';
          const client = new RacewireClient({ url: ${JSON.stringify(wsUrl)} });
          client.on('document', (stream, doc, seq) => { if (doc) window.seen = { stream, seq }; });
          client.subscribe(${JSON.stringify(`race:${raceId}`)});
          client.connect();
        </script>`;
        site = createServer((req, res) => {
          const js = req.url?.endsWith('.js');
          res.writeHead(200, { 'content-type': js ? 'text/javascript' : 'text/html' });
          res.end(js ? bundle : html);
        });
        await new Promise<void>((resolve) => site!.listen(0, '127.0.0.1', resolve));
        const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
        await page.goto(base);
        await page.waitForFunction(() => (window as { seen?: unknown }).seen !== undefined, undefined, {
          timeout: 15_000,
        });
        const seen = await page.evaluate(() => (window as { seen?: { stream: string } }).seen);
        expect(seen?.stream).toBe(raceId);
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
        site?.close();
      }
    },
    45_000,
  );
});
