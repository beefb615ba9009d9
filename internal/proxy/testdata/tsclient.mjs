// The official TypeScript SDK's client, for the proxy's tests: it calls
// slow_task once through the proxy (a 2025 session) with a request
// timeout, prints what came of the call as one JSON line, waits a moment
// (so that the cancel the SDK sends at its timeout is out) and closes.
// Usage: node tsclient.mjs NODE_MODULES URL TIMEOUT_MS [MAX_TOTAL_MS]
// (MAX_TOTAL_MS: the SDK's maxTotalTimeout, with the timeout reset by
// progress).
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [modules, url, timeoutArg, maxTotalArg] = process.argv.slice(2);
const sdk = (p) => import(pathToFileURL(join(modules, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");

const client = new Client({ name: "mcpchaos-proxy-test", version: "0" });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const t0 = Date.now();
let out;
try {
  await client.callTool({ name: "slow_task", arguments: { steps: 40, step_ms: 100 } }, undefined,
    { timeout: Number(timeoutArg), onprogress: () => {},
      ...(maxTotalArg ? { maxTotalTimeout: Number(maxTotalArg), resetTimeoutOnProgress: true } : {}) });
  out = { outcome: "result" };
} catch (e) {
  out = { outcome: "error", error: String(e) };
}
out.after_ms = Date.now() - t0;
console.log(JSON.stringify(out));
await new Promise((r) => setTimeout(r, 1000));
await client.close();
// The SDK may leave a timer of the call behind (its request timeout,
// after maxTotalTimeout gave up): exit rather than wait for it.
process.exit(0);
