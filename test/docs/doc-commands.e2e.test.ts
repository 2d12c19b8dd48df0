/**
 * Docs that run: every shell block of README.md and docs/*.md fenced as ```sh runnable is run with bash
 * against a racewire started here, so a documented command cannot rot. Before it runs, a block's
 * `http://localhost:8080` (and `ws://`) becomes this service's address and the placeholders `<race id>` and
 * `<meeting id>` an open race of the simulated day and its meeting. A block passes when bash exits 0
 * (`set -eo pipefail`, and the docs use `curl -sf`, so an HTTP error fails it) and prints something.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2eRacewire, pickFetchedOpenRace, startE2e, until } from '../e2e/harness.js';

const run = promisify(execFile);
const FILES = [
  'README.md',
  ...readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

interface Block {
  file: string;
  line: number;
  script: string;
}

function runnableBlocks(file: string): Block[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() !== '```sh runnable') continue;
    const end = lines.findIndex((l, j) => j > i && l.trim() === '```');
    blocks.push({ file, line: i + 1, script: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return blocks;
}

const blocks = FILES.flatMap(runnableBlocks);

describe('the documented commands', () => {
  let e2e: E2eRacewire;
  let raceId = '';
  let meetingId = '';

  beforeAll(async () => {
    e2e = await startE2e();
    // The docs fetch the race's document: take an open race racewire has fetched.
    ({ raceId, meetingId } = await pickFetchedOpenRace(e2e));
    // The docs ask /readyz, which answers from its checks' last background run (every second): wait for a
    // run that has seen the first listing, as a load balancer would before sending traffic.
    await until(async () => (await fetch(`${e2e.url}/readyz`)).ok || undefined, 'a ready node');
  }, 90_000);

  afterAll(async () => {
    await e2e?.stop();
  });

  it('are there to check: README.md and docs/ hold runnable blocks', () => {
    expect(blocks.map((b) => b.file)).toEqual(expect.arrayContaining(['README.md', 'docs/rest.md']));
  });

  it.each(blocks.map((b) => [`${b.file}:${b.line}`, b] as const))('%s runs', async (_, block) => {
    const base = e2e.url.replace(/\/$/, '');
    const script = block.script
      .replaceAll('http://localhost:8080', base)
      .replaceAll('ws://localhost:8080', base.replace(/^http/, 'ws'))
      .replaceAll('<race id>', raceId)
      .replaceAll('<meeting id>', meetingId);
    const { stdout } = await run('bash', ['-c', `set -eo pipefail\n${script}`], { timeout: 15_000 });
    expect(stdout.trim()).not.toBe('');
  });
});
