// Shared helpers for JS e2e tests: connect the official TypeScript SDK client to kopt over stdio
// or Streamable HTTP, and start `kopt serve --http` on a free port.
//   import { connectStdio, connectHttp, startKoptHttp } from "./lib/mcp_client.mjs";
//   const client = await connectStdio(process.env.KOPT_BIN, ["serve", "--conformance-fixtures"]);
//   const { tools } = await client.listTools();
//   await client.close();
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const defaultInfo = { name: "kopt-e2e", version: "0.0.0" };

// `options.capabilities`: client capabilities to declare (e.g. { elicitation: {} }).
// `options.stderr`: "inherit" (default), "pipe" or "ignore" for the server's stderr.
export async function connectStdio(command, args = [], options = {}) {
  const transport = new StdioClientTransport({ command, args, stderr: options.stderr ?? "inherit", env: options.env });
  const client = new Client(options.clientInfo ?? defaultInfo, { capabilities: options.capabilities ?? {} });
  await client.connect(transport);
  return client;
}

// `options.headers`: extra HTTP headers (e.g. { Authorization: "Bearer ..." }).
export async function connectHttp(url, options = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: options.headers ? { headers: options.headers } : undefined,
  });
  const client = new Client(options.clientInfo ?? defaultInfo, { capabilities: options.capabilities ?? {} });
  await client.connect(transport);
  return client;
}

// Starts `kopt serve --http 127.0.0.1:0 <args>` and resolves once it listens.
// Returns { url, port, process, stop() }.
export async function startKoptHttp(koptBin, args = [], { stderr = "inherit" } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "kopt-e2e-"));
  const portFile = join(dir, "port");
  const child = spawn(koptBin, ["serve", "--http", "127.0.0.1:0", "--port-file", portFile, ...args], {
    stdio: ["ignore", "ignore", stderr],
  });
  let exited = null;
  child.on("exit", (code, signal) => { exited = { code, signal }; });
  for (let i = 0; i < 200 && !existsSync(portFile); i++) {
    if (exited) break;
    await delay(50);
  }
  if (!existsSync(portFile)) {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`kopt serve --http did not start (${JSON.stringify(exited)})`);
  }
  const port = Number(readFileSync(portFile, "utf8").trim());
  const url = `http://127.0.0.1:${port}/mcp`;
  return {
    url,
    port,
    process: child,
    async stop() {
      if (!exited) {
        const done = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await done;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// Minimal assertion helpers that name what failed.
export function check(condition, message) {
  if (!condition) throw new Error(`check failed: ${message}`);
}
