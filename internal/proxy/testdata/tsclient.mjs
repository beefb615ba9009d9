// The official TypeScript SDK's client, for the proxy's tests: it calls
// slow_task once through the proxy (a 2025 session), prints what came of
// the call as one JSON line (outcome, error, the code the SDK's error
// carries, after_ms), stays connected a while (so that what the SDK sends
// by itself after the call, a cancel at its timeout or a retry, is out)
// and closes.
// Usage: node tsclient.mjs NODE_MODULES URL OPTIONS
// OPTIONS is a JSON object: steps, step_ms (slow_task's arguments);
// timeout_ms (the request timeout; absent: the SDK's default); progress
// (ask for progress); max_total_ms (the SDK's maxTotalTimeout, with the
// timeout reset by progress); wait_ms (how long to stay connected after
// the call; default 1000).
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [modules, url, optionsArg] = process.argv.slice(2);
const o = JSON.parse(optionsArg);
const sdk = (p) => import(pathToFileURL(join(modules, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");

const opts = {};
if (o.timeout_ms) opts.timeout = o.timeout_ms;
if (o.progress || o.max_total_ms) opts.onprogress = () => {};
if (o.max_total_ms) Object.assign(opts, { maxTotalTimeout: o.max_total_ms, resetTimeoutOnProgress: true });

const client = new Client({ name: "mcpchaos-proxy-test", version: "0" });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const t0 = Date.now();
let out;
try {
  await client.callTool({ name: "slow_task", arguments: { steps: o.steps, step_ms: o.step_ms } }, undefined, opts);
  out = { outcome: "result" };
} catch (e) {
  out = { outcome: "error", error: String(e), code: e.code ?? 0 };
}
out.after_ms = Date.now() - t0;
console.log(JSON.stringify(out));
await new Promise((r) => setTimeout(r, o.wait_ms ?? 1000));
await client.close();
// The SDK may leave a timer of the call behind (its request timeout,
// after maxTotalTimeout gave up): exit rather than wait for it.
process.exit(0);
