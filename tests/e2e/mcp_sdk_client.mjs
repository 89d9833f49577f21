// Run once per transport by mcp_sdk_client.test.sh:
//   node mcp_sdk_client.mjs stdio|http
// The official TypeScript SDK client lists tools, calls one with progress, cancels a long one
// (the server stops it: its cancellation ledger counts it; no response arrives for it), and checks
// structuredContent against the declared outputSchema (the SDK validates it too).
import { connectHttp, connectStdio, startKoptHttp, check } from "./lib/mcp_client.mjs";

const mode = process.argv[2];
const kopt = process.env.KOPT_BIN;
if (!kopt || !["stdio", "http"].includes(mode)) {
  console.error("usage: KOPT_BIN=... node mcp_sdk_client.mjs stdio|http");
  process.exit(2);
}

let server = null;
let client = null;
const strayErrors = [];
try {
  if (mode === "stdio") {
    client = await connectStdio(kopt, ["serve", "--conformance-fixtures"]);
  } else {
    server = await startKoptHttp(kopt, ["--conformance-fixtures"]);
    client = await connectHttp(server.url);
  }
  // A response for a cancelled request would surface here as "unknown message ID". (Progress
  // sent before the server saw the cancellation shows up as "unknown token": that is allowed.)
  client.onerror = (e) => {
    const text = String(e?.message ?? e);
    if (/unknown message ID/i.test(text)) strayErrors.push(text);
  };

  check(client.getServerVersion()?.name === "kopt", "serverInfo.name is kopt");
  const caps = client.getServerCapabilities();
  check(caps.tools && caps.logging && caps.resources?.subscribe && caps.prompts && caps.completions,
        `capabilities declared: ${JSON.stringify(caps)}`);

  // 1. tools/list
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const name of ["test_tool_with_progress", "test_long_running", "test_structured_content"]) {
    check(names.includes(name), `tools/list has ${name}`);
  }
  for (const t of tools) {
    check(typeof t.description === "string" && t.description.length > 0, `${t.name} has a description`);
    check(t.inputSchema?.type === "object", `${t.name} has an object inputSchema`);
  }
  console.log(`[${mode}] tools/list: ${tools.length} tools`);

  // 2. a call with progress
  const progress = [];
  const withProgress = await client.callTool(
    { name: "test_long_running", arguments: { seconds: 0.2, steps: 4 } },
    undefined,
    { onprogress: (p) => progress.push(p) },
  );
  check(!withProgress.isError, `test_long_running succeeded: ${JSON.stringify(withProgress)}`);
  // The SDK hands progress to `onprogress` a microtask later than it handles the response, so a
  // notification read in the same chunk as the response can be dropped by the client: expect a
  // prefix of 1..4, not necessarily all four.
  check(progress.length >= 1, `progress notifications arrive, got ${JSON.stringify(progress)}`);
  progress.forEach((p, i) => check(p.progress === i + 1 && p.total === 4, `progress ${i + 1} of 4: ${JSON.stringify(p)}`));
  console.log(`[${mode}] progress: ${progress.map((p) => p.progress).join(",")}`);

  // 3. structuredContent against the declared outputSchema
  const tool = tools.find((t) => t.name === "test_structured_content");
  check(tool.outputSchema?.required?.includes("sum"), "test_structured_content declares an outputSchema");
  const structured = await client.callTool({ name: "test_structured_content", arguments: { a: 6, b: 7 } });
  check(!structured.isError, "structured call succeeded");
  check(structured.structuredContent?.sum === 13 && structured.structuredContent?.product === 42,
        `structuredContent ${JSON.stringify(structured.structuredContent)}`);
  for (const key of Object.keys(structured.structuredContent)) {
    check(key in tool.outputSchema.properties, `structuredContent key ${key} is declared`);
  }
  const mirrored = JSON.parse(structured.content.find((c) => c.type === "text").text);
  check(JSON.stringify(mirrored) === JSON.stringify(structured.structuredContent), "structuredContent mirrored as text");
  const bad = await client.callTool({ name: "test_structured_content", arguments: { a: 6, b: "seven" } });
  check(bad.isError === true && /'b'/.test(bad.content[0].text), `bad argument names the field: ${JSON.stringify(bad)}`);
  const missing = await client.callTool({ name: "test_structured_content", arguments: { a: 6 } });
  check(missing.isError === true && /'b'/.test(missing.content[0].text) && /required/.test(missing.content[0].text),
        `missing argument names the field: ${JSON.stringify(missing)}`);
  console.log(`[${mode}] structuredContent: ${JSON.stringify(structured.structuredContent)}`);

  // 4. cancel a long call: abort once it has reported progress (so it is surely running)
  const before = (await client.callTool({ name: "test_cancelled_calls", arguments: { at_least: 0 } })).structuredContent.cancelled;
  const controller = new AbortController();
  let sawProgress = false;
  const longCall = client.callTool(
    { name: "test_long_running", arguments: { seconds: 120, steps: 1200 } },
    undefined,
    {
      signal: controller.signal,
      onprogress: () => {
        if (!sawProgress) {
          sawProgress = true;
          controller.abort("test cancels the call");
        }
      },
    },
  );
  let rejected = false;
  try {
    await longCall;
  } catch {
    rejected = true;
  }
  check(sawProgress && rejected, "the long call started and was aborted");
  const after = (await client.callTool({ name: "test_cancelled_calls", arguments: { at_least: before + 1 } }))
    .structuredContent.cancelled;
  check(after >= before + 1, `the server stopped the cancelled call (cancelled count ${before} -> ${after})`);
  await client.ping();
  check(strayErrors.length === 0, `no response for the cancelled call: ${JSON.stringify(strayErrors)}`);
  console.log(`[${mode}] cancellation: server stopped the call (ledger ${before} -> ${after})`);

  console.log(`[${mode}] PASS`);
} catch (e) {
  console.error(`[${mode}] FAIL: ${e?.stack ?? e}`);
  process.exitCode = 1;
} finally {
  if (client) await client.close().catch(() => {});
  if (server) await server.stop();
}
