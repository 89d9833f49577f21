// Raw stdio checks with stdin held open. Every stdout line must parse as
// JSON; garbage, half lines, a 5 MB message, an oversized line, invalid UTF-8, unknown methods and
// bad ids each get the right error, and a ping after each proves the server keeps serving.
// Responses are read line by line: the test waits for lines, never for time.
//   KOPT_BIN=... node mcp_stdio_raw.mjs
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const kopt = process.env.KOPT_BIN;
if (!kopt) {
  console.error("usage: KOPT_BIN=... node mcp_stdio_raw.mjs");
  process.exit(2);
}

const child = spawn(kopt, ["serve", "--stdio", "--conformance-fixtures"], { stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
const lines = [];
const waiters = [];
const allMessages = [];
let streamEnded = false;
createInterface({ input: child.stdout, crlfDelay: Infinity }).on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    fail(`stdout line is not JSON: ${JSON.stringify(line.slice(0, 200))}`);
  }
  allMessages.push(message);
  if (waiters.length) waiters.shift()(message);
  else lines.push(message);
}).on("close", () => {
  streamEnded = true;
  while (waiters.length) waiters.shift()(null);
});

// A deadline for the whole test, so a hung server fails it instead of hanging CI.
const watchdog = setTimeout(() => fail("timed out after 120 s waiting for the server"), 120_000);

function fail(message) {
  console.error(`FAIL: ${message}`);
  child.kill("SIGKILL");
  process.exit(1);
}
function check(condition, message) {
  if (!condition) fail(message);
}
function next() {
  if (lines.length) return Promise.resolve(lines.shift());
  if (streamEnded) return Promise.resolve(null);
  return new Promise((resolve) => waiters.push(resolve));
}
function write(data) {
  return new Promise((resolve, reject) => child.stdin.write(data, (err) => (err ? reject(err) : resolve())));
}
const send = (message) => write(JSON.stringify(message) + "\n");
let nextId = 1000;
async function pingStillServes(after) {
  const id = nextId++;
  await send({ jsonrpc: "2.0", id, method: "ping" });
  const reply = await next();
  check(reply && reply.id === id && JSON.stringify(reply.result) === "{}", `ping after ${after}: got ${JSON.stringify(reply)}`);
}
async function expectError(what, code, id = null) {
  const reply = await next();
  check(reply && reply.error && reply.error.code === code && reply.id === id,
        `${what}: expected error ${code} with id ${id}, got ${JSON.stringify(reply)?.slice(0, 300)}`);
  console.log(`ok: ${what} -> ${code} (${reply.error.message.slice(0, 80)})`);
  await pingStillServes(what);
}

// Handshake.
await send({ jsonrpc: "2.0", id: 1, method: "initialize",
             params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } } });
const init = await next();
check(init?.id === 1 && init.result?.protocolVersion === "2025-11-25", `initialize: ${JSON.stringify(init)}`);
await send({ jsonrpc: "2.0", method: "notifications/initialized" });
await pingStillServes("initialize");

// Garbage, half lines, bad structure.
await write("this is not json\n");
await expectError("garbage line", -32700);
await write('{"jsonrpc":"2.0","id":7,"method":"pi');  // half a message, then the rest in a second write
await write('ng"}\n');
const joined = await next();
check(joined?.id === 7 && joined.result, `a message split over two writes is one message: ${JSON.stringify(joined)}`);
console.log("ok: message split across writes answered once");
await write('{"jsonrpc":"2.0","id":8,"method":"ping"\n');  // truncated, then newline
await expectError("half line then newline", -32700);
await send({ jsonrpc: "2.0", id: null, method: "ping" });
await expectError("null id", -32600);
await send({ jsonrpc: "1.0", id: 9, method: "ping" });
await expectError("wrong jsonrpc version", -32600, 9);
await send([{ jsonrpc: "2.0", id: 10, method: "ping" }]);
await expectError("batch under 2025-11-25", -32600);
await send({ jsonrpc: "2.0", id: 11, method: "no/such/method" });
await expectError("unknown method", -32601, 11);
await send({ jsonrpc: "2.0", method: "notifications/no_such_thing" });
await pingStillServes("unknown notification (no answer: the next line is the ping's)");
await send({ jsonrpc: "2.0", id: 12, method: "tools/call", params: { name: "no_such_tool", arguments: {} } });
await expectError("unknown tool", -32602, 12);

// Invalid UTF-8 in the input is a parse error; invalid UTF-8 in tool output is replaced.
await write(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"test_echo","arguments":{"message":"'),
                           Buffer.from([0xff, 0xfe, 0x41]), Buffer.from('"}}}\n')]));
await expectError("invalid UTF-8 input", -32700);
await send({ jsonrpc: "2.0", id: 14, method: "tools/call", params: { name: "test_invalid_utf8_output", arguments: {} } });
const replaced = await next();
check(replaced?.id === 14 && replaced.result?.content?.[0]?.text?.includes("\uFFFD"),
      `invalid UTF-8 in tool output replaced by U+FFFD: ${JSON.stringify(replaced)}`);
console.log("ok: invalid UTF-8 in tool output replaced");
await pingStillServes("invalid UTF-8 output");

// A 5 MB message is served; a line over the 16 MiB limit is refused and the server goes on.
const big = "x".repeat(5 * 1024 * 1024);
await send({ jsonrpc: "2.0", id: 15, method: "tools/call", params: { name: "test_echo", arguments: { message: big } } });
const echoed = await next();
check(echoed?.id === 15 && echoed.result?.content?.[0]?.text === "Echo: " + big, "5 MB message echoed intact");
console.log("ok: 5 MB message echoed");
await pingStillServes("5 MB message");
await send({ jsonrpc: "2.0", id: 16, method: "tools/call", params: { name: "test_echo", arguments: { message: "y".repeat(17 * 1024 * 1024) } } });
await expectError("17 MiB line over the limit", -32600);

// Cancellation: the call is stopped and never answered.
await send({ jsonrpc: "2.0", id: 50, method: "tools/call",
             params: { name: "test_long_running", arguments: { seconds: 120, steps: 1200 }, _meta: { progressToken: "p50" } } });
const firstProgress = await next();
check(firstProgress?.method === "notifications/progress" && firstProgress.params.progressToken === "p50",
      `progress for the long call: ${JSON.stringify(firstProgress)}`);
await send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 50, reason: "test" } });
await send({ jsonrpc: "2.0", id: 51, method: "tools/call", params: { name: "test_cancelled_calls", arguments: { at_least: 1 } } });
let counted;
for (;;) {
  const m = await next();
  check(m !== null, "stream ended early");
  check(m.id !== 50, `a response was sent for the cancelled call: ${JSON.stringify(m)}`);
  if (m.method === "notifications/progress") continue;  // sent before the cancellation landed
  counted = m;
  break;
}
check(counted.id === 51 && counted.result?.structuredContent?.cancelled >= 1, `cancellation observed: ${JSON.stringify(counted)}`);
console.log("ok: cancelled call stopped");
await pingStillServes("cancellation");

// EOF: the server exits, and by then it has written everything it ever will.
child.stdin.end();
const { code, signal } = await exited;
while (await next()) {}
clearTimeout(watchdog);
check(code === 0, `exit status after EOF: ${code} ${signal}`);
check(!allMessages.some((m) => m.id === 50 && !m.method), "no response for the cancelled call, ever");
console.log(`PASS: ${allMessages.length} stdout lines, all JSON; server exited 0 on EOF`);
