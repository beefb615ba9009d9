// The official TypeScript SDK's client behind the proxy's throttle: it
// calls slow_task once (a 2025 session) with no retry of its own, prints
// what came of the call as one JSON line (outcome, error, the HTTP status
// the SDK's error carries), then stays connected WAIT_MS, longer than the
// throttle's Retry-After, so that a retry the SDK made by itself would
// reach the proxy, and closes.
// Usage: node tsthrottle.mjs NODE_MODULES URL WAIT_MS
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [modules, url, waitArg] = process.argv.slice(2);
const sdk = (p) => import(pathToFileURL(join(modules, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");

const client = new Client({ name: "mcpchaos-proxy-test", version: "0" });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const t0 = Date.now();
let out;
try {
  await client.callTool({ name: "slow_task", arguments: { steps: 1, step_ms: 10 } });
  out = { outcome: "result" };
} catch (e) {
  out = { outcome: "error", error: String(e), code: e.code ?? 0 };
}
out.after_ms = Date.now() - t0;
console.log(JSON.stringify(out));
await new Promise((r) => setTimeout(r, Number(waitArg)));
await client.close();
process.exit(0);
