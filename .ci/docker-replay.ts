/**
 * Replays the Dockerfile without a container engine (there is none on these machines), so a Dockerfile that
 * cannot build, or an image that cannot start, fails CI:
 *
 * 1. the build context: the checkout's files that `.dockerignore` leaves in, copied to a temporary directory;
 * 2. every stage in its own directory standing for the image's `/`: COPY (from the context or `--from` a
 *    stage), WORKDIR, ENV and the build stages' RUN commands, run as written (`apt-get` lines excepted: the
 *    host provides the compilers the base image lacks, checked here). The final stage's RUN lines prepare the
 *    image's own file system (the data volume) and only run inside an image;
 * 3. checks on the final stage (no sources, tests or build tools), then its CMD with its ENV, as an
 *    unprivileged user when CI runs as root (the image runs as `node`), until `/readyz` answers 200 and the
 *    HEALTHCHECK command passes; SIGTERM must then end it with 0.
 *
 * Run with the Node line of the base image first on PATH: `npx tsx .ci/docker-replay.ts`.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';

const repo = join(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'racewire-docker-'));
const say = (msg: string) => process.stdout.write(`docker-replay: ${msg}\n`);

class ReplayError extends Error {}
const fail = (msg: string): never => {
  throw new ReplayError(msg);
};

const GLOB: Record<string, string> = { '**/': '(?:.*/)?', '**': '.*', '*': '[^/]*', '?': '[^/]' };

/** `.dockerignore` semantics: patterns in order, the last one matching a path (or a parent of it) wins. */
function dockerignore(text: string): (path: string) => boolean {
  const rules = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const negate = l.startsWith('!');
      const glob = posix.normalize((negate ? l.slice(1) : l).replace(/^\/+/, '')).replace(/\/$/, '');
      const source = glob
        .split(/(\*\*\/?|\*|\?)/)
        .map((part) => GLOB[part] ?? part.replace(/[.+^${}()|[\]\\]/g, '\\$&'))
        .join('');
      return { negate, re: new RegExp(`^${source}(?:/.*)?$`) };
    });
  return (path) => {
    let excluded = false;
    for (const rule of rules) if (rule.re.test(path)) excluded = !rule.negate;
    return excluded;
  };
}

interface Instruction {
  op: string;
  args: string;
}

/** Instructions with their continuation lines joined; comments and parser directives dropped. */
function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    if (!pending && /^\s*#/.test(raw)) continue;
    const line = raw.replace(/\s+$/, '');
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const full = (pending + line).trim();
    pending = '';
    if (!full) continue;
    const [, op = '', args = ''] = /^(\S+)\s*(.*)$/s.exec(full) ?? [];
    out.push({ op: op.toUpperCase(), args });
  }
  return out;
}

interface Stage {
  name: string;
  image: string;
  root: string;
  workdir: string;
  env: Record<string, string>;
  user?: string;
  cmd?: string[];
  healthcheck?: string[];
}

/** The stage's directory standing for an absolute path of its file system. */
const inStage = (stage: Stage, path: string) =>
  join(stage.root, posix.isAbsolute(path) ? path : posix.join(stage.workdir, path));

function copy(stage: Stage, args: string, stages: Map<string, Stage>, context: string) {
  const words = args.split(/\s+/);
  let from: Stage | undefined;
  while (words[0]?.startsWith('--')) {
    const flag = words.shift()!;
    if (flag.startsWith('--from=')) from = stages.get(flag.slice(7)) ?? fail(`unknown stage in ${flag}`);
    else if (!flag.startsWith('--chown=')) fail(`COPY flag ${flag} is not replayed`);
  }
  const dest = words.pop() ?? fail('COPY without a destination');
  const target = inStage(stage, dest);
  for (const src of words) {
    const path = from ? inStage(from, src) : join(context, src);
    if (!existsSync(path)) fail(`COPY ${src}: not in the ${from ? `stage ${from.name}` : 'build context'}`);
    const isDir = statSync(path).isDirectory();
    const to = isDir
      ? target
      : dest.endsWith('/') || words.length > 1
        ? join(target, posix.basename(src))
        : target;
    mkdirSync(isDir ? to : dirname(to), { recursive: true });
    cpSync(path, to, { recursive: true, verbatimSymlinks: true });
  }
}

function run(stage: Stage, command: string) {
  if (/^apt-get\b/.test(command)) {
    const tools = /install\s+(?:-\S+\s+)*([^&]+)/.exec(command)?.[1]?.split(/\s+/).filter(Boolean) ?? [];
    execFileSync('bash', ['-c', `command -v ${tools.join(' ')} >/dev/null`], { stdio: 'inherit' });
    say(`RUN apt-get ... (${tools.join(', ')}: provided by the host)`);
    return;
  }
  say(`RUN ${command}`);
  execFileSync('bash', ['-c', command], {
    cwd: inStage(stage, '.'),
    env: { ...process.env, ...stage.env },
    stdio: 'inherit',
  });
}

const jsonArray = (text: string) => {
  const value = JSON.parse(text) as unknown;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) fail(`not an exec form: ${text}`);
  return value as string[];
};

function replay(dockerfile: Instruction[], context: string): Stage {
  const stages = new Map<string, Stage>();
  const order: Stage[] = [];
  const lastFrom = dockerfile.map((i) => i.op).lastIndexOf('FROM');
  for (const [index, { op, args }] of dockerfile.entries()) {
    const stage = order.at(-1);
    if (op === 'FROM') {
      const [image = '', , name] = args.split(/\s+/);
      const next: Stage = {
        name: name ?? String(order.length),
        image,
        root: join(work, 'stages', String(order.length)),
        workdir: '/',
        env: {},
      };
      mkdirSync(next.root, { recursive: true });
      const major = /^node:(\d+)/.exec(image)?.[1] ?? fail(`FROM ${image}: not a node image`);
      if (process.versions.node.split('.')[0] !== major) {
        fail(`FROM ${image} but this is Node ${process.version}: run the replay with Node ${major}`);
      }
      stages.set(next.name, next);
      order.push(next);
      continue;
    }
    if (!stage) fail(`${op} before FROM`);
    const s = stage!;
    if (op === 'WORKDIR') {
      s.workdir = posix.resolve(s.workdir, args);
      mkdirSync(inStage(s, '.'), { recursive: true });
    } else if (op === 'ENV') {
      for (const pair of args.split(/\s+/)) {
        const [key = '', ...value] = pair.split('=');
        s.env[key] = value.join('=');
      }
    } else if (op === 'COPY') copy(s, args, stages, context);
    else if (op === 'RUN') {
      if (index > lastFrom) say(`RUN ${args} (final stage: inside the image only)`);
      else run(s, args);
    } else if (op === 'USER') s.user = args;
    else if (op === 'CMD') s.cmd = jsonArray(args);
    else if (op === 'HEALTHCHECK') s.healthcheck = jsonArray(args.slice(args.indexOf('CMD') + 3).trim());
    else if (!['VOLUME', 'EXPOSE'].includes(op)) fail(`${op} is not replayed`);
  }
  return order.at(-1) ?? fail('no FROM');
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** Bytes under `path`, symlinks counted as links (the image holds them as such). */
function bytesUnder(path: string): number {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + bytesUnder(join(path, name)), 0);
}

/** What the image's /app would hold: its size, each top-level entry and the largest packages. */
function reportContents(final: Stage): void {
  const app = inStage(final, '.');
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
  const sized = (dir: string) =>
    readdirSync(dir)
      .map((name) => ({ name, bytes: bytesUnder(join(dir, name)) }))
      .sort((a, b) => b.bytes - a.bytes);
  const top = sized(app);
  say(
    `/app would ship ${mb(top.reduce((s, e) => s + e.bytes, 0))}: ${top.map((e) => `${e.name} ${mb(e.bytes)}`).join(', ')}`,
  );
  const packages = readdirSync(join(app, 'node_modules')).flatMap((name) =>
    name.startsWith('@')
      ? readdirSync(join(app, 'node_modules', name)).map((sub) => `${name}/${sub}`)
      : [name],
  );
  const largest = packages
    .map((name) => ({ name, bytes: bytesUnder(join(app, 'node_modules', name)) }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 8);
  say(`largest packages: ${largest.map((e) => `${e.name} ${mb(e.bytes)}`).join(', ')}`);
  if (existsSync(join(app, 'node_modules/better-sqlite3/deps'))) fail('better-sqlite3 ships its C sources');
}

async function start(final: Stage): Promise<void> {
  const app = inStage(final, '.');
  for (const forbidden of [
    'src',
    'scripts',
    'test',
    'clients/web',
    'node_modules/tsx',
    'node_modules/esbuild',
  ]) {
    if (existsSync(join(app, forbidden))) fail(`the runtime stage holds ${forbidden}`);
  }
  if (final.env.NODE_ENV !== 'production') fail('the runtime stage does not set NODE_ENV=production');
  if (!final.user || final.user === 'root') fail('the runtime stage runs as root');
  if (!final.cmd || !final.healthcheck) fail('the runtime stage needs a CMD and a HEALTHCHECK');

  const port = await freePort();
  const data = join(work, 'data');
  mkdirSync(data);
  const env = {
    ...final.env,
    PATH: process.env.PATH ?? '',
    PORT: String(port),
    DATA_DIR: data,
    HOST: '127.0.0.1',
  };
  // Told nothing of its upstream, the production image must refuse rather than serve simulated data.
  const refused = spawnSync(final.cmd![0]!, final.cmd!.slice(1), { cwd: app, env, encoding: 'utf8' });
  if (refused.status === 0 || !refused.stderr.includes('UPSTREAM=simulator')) {
    fail(`without RACING_API_URL the image did not refuse to start (exit ${refused.status})`);
  }
  say('without RACING_API_URL it refused to start, naming the fix');
  // The replay runs the embedded simulator, said out loud as an operator would.
  Object.assign(env, { UPSTREAM: 'simulator' });
  // As root, start it as nobody: the service must need no more than its data directory.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    execFileSync('chmod', ['-R', 'a+rX', work]);
    chmodSync(work, 0o755);
    chownSync(data, 65534, 65534);
  }
  // setpriv execs the command itself, so SIGTERM reaches node as it would in the container.
  const drop = ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups', '--'];
  const [command = '', ...args] = asRoot ? [...drop, ...final.cmd!] : final.cmd!;
  say(`CMD ${final.cmd!.join(' ')} (PORT=${port}${asRoot ? ', as nobody' : ''})`);
  const child: ChildProcess = spawn(command, args, { cwd: app, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const deadline = Date.now() + 90_000;
    for (;;) {
      if (child.exitCode !== null)
        fail(`node dist/main.js exited with ${child.exitCode} before it was ready`);
      const status = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) break;
      if (Date.now() > deadline) fail(`/readyz still answers ${status} after 90 s`);
      await new Promise((r) => setTimeout(r, 250));
    }
    say('/readyz answered 200');
    const [hc = '', ...hcArgs] = final.healthcheck!;
    execFileSync(hc, hcArgs, { cwd: app, env, stdio: 'inherit' });
    say('HEALTHCHECK passed');
  } finally {
    child.kill('SIGTERM');
  }
  const code = await exited;
  if (code !== 0) fail(`SIGTERM ended the service with ${code}, not 0`);
  say('stopped cleanly on SIGTERM');
}

try {
  const ignored = dockerignore(readFileSync(join(repo, '.dockerignore'), 'utf8'));
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repo,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((f) => f && existsSync(join(repo, f)) && !ignored(f));
  const context = join(work, 'context');
  for (const file of files) {
    mkdirSync(dirname(join(context, file)), { recursive: true });
    cpSync(join(repo, file), join(context, file));
  }
  say(`build context: ${files.length} files`);
  const final = replay(parseDockerfile(readFileSync(join(repo, 'Dockerfile'), 'utf8')), context);
  reportContents(final);
  await start(final);
  say('ok');
} catch (err) {
  process.stderr.write(`docker-replay: FAILED: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
