// The step server on the TypeScript SDK v2 (@modelcontextprotocol/server,
// with @modelcontextprotocol/node for Streamable HTTP), the third SDK of
// internal/stepserver: the same tool, truth file and configuration as the
// Go ones (stepserver.go), run as `node stepserver.mjs MODULES`, MODULES
// being the node_modules directory .ci/tssdk installs the SDK into
// (.cache/tssdk/node_modules; stepserver.Command builds the argv). The
// packages are loaded from MODULES by require (their CommonJS builds): an
// ES module's imports resolve from the importing file's own directory only.
//
// Configuration: MCPCHAOS_STEPSERVER="tssdk,TRANSPORT,MODE[,sleep]" and
// MCPCHAOS_STEPSERVER_TRUTH, the truth file. Its one tool, work
// {steps, step_ms}, runs steps CPU-bound (or asleep with ",sleep"), sends
// progress (progress, total) after each when the call has a progress token,
// and appends "UNIX_NANO TOKEN step N" to the truth file after each step
// ("UNIX_NANO TOKEN stop N" when it stops), the token printed as Go's %v
// prints it (<nil> for none), so stepserver.LastSteps reads it unchanged.
//
// Node runs JavaScript on one thread: a step that computed without pause
// would keep the event loop from reading anything, a cancel or another
// call, until it ended. So a CPU-bound step burns in slices of about 2 ms
// and yields to the event loop between slices (await setImmediate). A
// stopping server (MODE stop) checks the call's AbortSignal at every slice
// and returns "stopped at step N: ..." once it is aborted; a leaking one
// (MODE leak) never looks at it and runs every step. The SDK aborts the
// signal on a notifications/cancelled (stdio, a 2025 session) or when the
// request's HTTP stream closes (Streamable HTTP: the 2026-07-28 way to
// cancel, and the end of a 2025 stateless request's instance).
//
// Stdio mode runs until stdin ends; HTTP mode listens on 127.0.0.1:0 and
// prints its URL as the first line of stdout.
import { closeSync, openSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

if (!process.argv[2]) {
  process.stderr.write('usage: node stepserver.mjs NODE_MODULES (the directory .ci/tssdk installs into)\n');
  process.exit(2);
}
const require = createRequire(join(process.argv[2], 'stepserver.cjs'));
const { createMcpHandler, McpServer } = require('@modelcontextprotocol/server');
const { serveStdio } = require('@modelcontextprotocol/server/stdio');
const { localhostHostValidation, toNodeHandler } = require('@modelcontextprotocol/node');
const z = require('zod');

const SLICE_MS = 2;

function fail(msg) {
  process.stderr.write(`stepserver.mjs: ${msg}\n`);
  process.exit(2);
}

function config() {
  const v = process.env.MCPCHAOS_STEPSERVER ?? '';
  const parts = v.split(',');
  if (parts.length !== 3 && (parts.length !== 4 || parts[3] !== 'sleep')) {
    fail(`MCPCHAOS_STEPSERVER=${JSON.stringify(v)}: want tssdk,TRANSPORT,MODE or tssdk,TRANSPORT,MODE,sleep`);
  }
  const [sdk, transport, mode] = parts;
  if (sdk !== 'tssdk') fail(`MCPCHAOS_STEPSERVER: SDK ${JSON.stringify(sdk)} is not this server's (tssdk)`);
  if (transport !== 'stdio' && transport !== 'http') fail(`MCPCHAOS_STEPSERVER: unknown transport ${JSON.stringify(transport)} (stdio, http)`);
  if (mode !== 'leak' && mode !== 'stop') fail(`MCPCHAOS_STEPSERVER: unknown mode ${JSON.stringify(mode)} (leak, stop)`);
  const truth = process.env.MCPCHAOS_STEPSERVER_TRUTH ?? '';
  if (truth === '') fail('MCPCHAOS_STEPSERVER_TRUTH is not set');
  return { transport, leak: mode === 'leak', sleep: parts.length === 4, truth };
}

const cfg = config();
let truthFd;
try {
  truthFd = openSync(cfg.truth, 'a', 0o600);
} catch (err) {
  fail(`open truth file: ${err.message}`);
}

// nowNanos is the wall clock in Unix nanoseconds, finer than Date.now().
function nowNanos() {
  return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
}

// log writes one truth line: "UNIX_NANO TOKEN WHAT STEP".
function log(token, what, step) {
  writeSync(truthFd, `${nowNanos()} ${token === undefined ? '<nil>' : String(token)} ${what} ${step}\n`);
}

let sink = 1;

// burn computes for ms in slices, yielding between them; unless leak, it
// returns false as soon as signal is aborted.
async function burn(ms, signal, leak) {
  const end = performance.now() + ms;
  let x = sink;
  while (performance.now() < end) {
    if (!leak && signal.aborted) return false;
    const sliceEnd = Math.min(end, performance.now() + SLICE_MS);
    while (performance.now() < sliceEnd) {
      for (let i = 0; i < 4096; i++) x = (Math.imul(x, 1664525) + 1013904223) | 0;
    }
    sink = x;
    await new Promise(setImmediate);
  }
  return true;
}

// rest sleeps for ms; unless leak, it returns false as soon as signal is
// aborted.
async function rest(ms, signal, leak) {
  if (leak) {
    await sleep(ms);
    return true;
  }
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

async function work({ steps, step_ms: stepMs }, ctx) {
  const token = ctx.mcpReq._meta?.progressToken;
  const signal = ctx.mcpReq.signal;
  const step = cfg.sleep ? rest : burn;
  for (let n = 1; n <= steps; n++) {
    if (!(await step(stepMs, signal, cfg.leak))) {
      log(token, 'stop', n);
      return { isError: true, content: [{ type: 'text', text: `stopped at step ${n}: ${signal.reason ?? 'aborted'}` }] };
    }
    log(token, 'step', n);
    if (token !== undefined) {
      ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: n, total: steps } }).catch(() => {});
    }
  }
  return { content: [{ type: 'text', text: `worked ${steps} steps of ${stepMs} ms` }] };
}

function newServer() {
  const srv = new McpServer({ name: 'stepserver-tssdk', version: '1' }, { capabilities: { tools: {} } });
  srv.registerTool('work', {
    description: 'CPU-bound steps, each logged',
    inputSchema: z.object({ steps: z.number().int().min(0), step_ms: z.number().min(0) }),
  }, work);
  return srv;
}

if (cfg.transport === 'stdio') {
  serveStdio(newServer, { onerror: (err) => process.stderr.write(`stepserver.mjs: ${err.message}\n`) });
  // Like the Go servers: the process ends with its input, whatever still runs.
  process.stdin.on('end', () => {
    closeSync(truthFd);
    process.exit(0);
  });
} else {
  const handle = toNodeHandler(createMcpHandler(newServer));
  const validHost = localhostHostValidation();
  const server = createServer((req, res) => {
    if (validHost(req, res)) handle(req, res);
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`http://127.0.0.1:${server.address().port}/mcp\n`);
  });
}
