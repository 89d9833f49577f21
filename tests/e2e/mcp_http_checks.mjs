// Run by mcp_http.test.sh: Streamable HTTP security and session rules,
// checked with raw HTTP requests (node:http, so Host can be forged):
// foreign Origin/Host -> 403; missing/wrong bearer token -> 401; unknown session -> 404;
// DELETE then reuse -> 404; unsupported MCP-Protocol-Version -> 400; HEAD/PUT -> 405;
// and 50 clients holding open SSE streams (50 POST tool-call streams + 50 GET streams) do not
// keep a new client from initializing and getting its `ping` answered.
//   KOPT_BIN=... node mcp_http_checks.mjs
import http from "node:http";
import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startKoptHttp, check } from "./lib/mcp_client.mjs";

const kopt = process.env.KOPT_BIN;
if (!kopt) {
  console.error("usage: KOPT_BIN=... node mcp_http_checks.mjs");
  process.exit(2);
}
const TOKEN = "e2e-" + Math.random().toString(36).slice(2);
const dir = mkdtempSync(join(tmpdir(), "kopt-http-"));
writeFileSync(join(dir, "token"), TOKEN + "\n");
const server = await startKoptHttp(kopt, ["--conformance-fixtures", "--token-file", join(dir, "token")]);
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const watchdog = setTimeout(() => {
  console.error("FAIL: timed out after 120 s");
  process.exit(1);
}, 120_000);

const auth = { Authorization: `Bearer ${TOKEN}` };
const jsonHeaders = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

// Sends one request and resolves with the whole response (not for streams that stay open).
function request(method, headers = {}, body = undefined) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: server.port, path: "/mcp", method, headers, agent }, (res) => {
      let data = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (data += c));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: data }));
    });
    req.on("error", (e) => reject(new Error(`${method} ${JSON.stringify(body)?.slice(0, 80)}: ${e.message}`)));
    if (body !== undefined) req.write(typeof body === "string" ? body : JSON.stringify(body));
    req.end();
  });
}

// Opens a request whose response is an SSE stream; resolves once the first event arrived (the
// stream is open and flowing), with a promise for its end.
function openStream(method, headers, body, firstEvent) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: server.port, path: "/mcp", method, headers, agent }, (res) => {
      if (res.statusCode !== 200 || !String(res.headers["content-type"]).startsWith("text/event-stream")) {
        reject(new Error(`stream refused: ${res.statusCode} ${res.headers["content-type"]}`));
        return;
      }
      const ended = new Promise((r) => { res.on("end", r); res.on("close", r); res.on("error", r); });
      let data = "";
      let resolved = false;
      res.setEncoding("utf8");
      res.on("data", (c) => {
        data += c;
        if (!resolved && (firstEvent ? data.includes("data: ") : true)) {
          resolved = true;
          resolve({ ended, req });
        }
      });
      if (!firstEvent) {
        resolved = true;
        resolve({ ended, req });
      }
    });
    req.on("error", (e) => reject(new Error(`stream ${method} ${JSON.stringify(body)?.slice(0, 80)}: ${e.message}`)));
    if (body !== undefined) req.write(JSON.stringify(body));
    req.end();
  });
}

const initBody = (id = 1) => ({
  jsonrpc: "2.0", id, method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "http-e2e", version: "0" } },
});

async function newSession(extra = {}) {
  const res = await request("POST", { ...jsonHeaders, ...auth, ...extra }, initBody());
  check(res.status === 200, `initialize: ${res.status} ${res.body}`);
  const session = res.headers["mcp-session-id"];
  check(typeof session === "string" && /^[\x21-\x7e]+$/.test(session), `visible-ASCII session id: ${session}`);
  const headers = { ...jsonHeaders, ...auth, "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25" };
  const initialized = await request("POST", headers, { jsonrpc: "2.0", method: "notifications/initialized" });
  check(initialized.status === 202 && initialized.body === "", `notification -> 202 without body: ${initialized.status}`);
  return { session, headers };
}

async function ping(headers, id = 99) {
  return request("POST", headers, { jsonrpc: "2.0", id, method: "ping" });
}

try {
  // Authentication.
  check((await request("POST", jsonHeaders, initBody())).status === 401, "missing token -> 401");
  const wrong = await request("POST", { ...jsonHeaders, Authorization: `Bearer ${TOKEN}x` }, initBody());
  check(wrong.status === 401 && /Bearer/.test(wrong.headers["www-authenticate"] ?? ""), "wrong token -> 401 with WWW-Authenticate");
  check((await request("POST", { ...jsonHeaders, Authorization: TOKEN }, initBody())).status === 401, "token without Bearer -> 401");
  console.log("ok: bearer token missing/wrong -> 401");

  // DNS rebinding protection.
  const evilOrigin = await request("POST", { ...jsonHeaders, ...auth, Origin: "http://evil.example.com" }, initBody());
  check(evilOrigin.status === 403, `foreign Origin -> 403, got ${evilOrigin.status}`);
  const evilHost = await request("POST", { ...jsonHeaders, ...auth, Host: "evil.example.com" }, initBody());
  check(evilHost.status === 403, `foreign Host -> 403, got ${evilHost.status}`);
  const goodOrigin = await request("POST", { ...jsonHeaders, ...auth, Origin: `http://localhost:${server.port}` }, initBody());
  check(goodOrigin.status === 200, `localhost Origin accepted, got ${goodOrigin.status}`);
  console.log("ok: foreign Origin/Host -> 403, localhost accepted");

  // Sessions and protocol version.
  const { session, headers } = await newSession();
  const pong = await ping(headers);
  check(pong.status === 200 && JSON.parse(pong.body).result !== undefined, `ping in session: ${pong.status} ${pong.body}`);
  const unknown = await ping({ ...headers, "Mcp-Session-Id": "no-such-session" });
  check(unknown.status === 404, `unknown session -> 404, got ${unknown.status}`);
  const badVersion = await ping({ ...headers, "MCP-Protocol-Version": "2024-01-01" });
  check(badVersion.status === 400, `unsupported MCP-Protocol-Version -> 400, got ${badVersion.status}`);
  const olderVersion = await ping({ ...headers, "MCP-Protocol-Version": "2025-06-18" });
  check(olderVersion.status === 200, `a supported MCP-Protocol-Version is accepted, got ${olderVersion.status}`);
  check((await request("HEAD", headers)).status === 405, "HEAD -> 405");
  check((await request("PUT", headers, "{}")).status === 405, "PUT -> 405");
  const del = await request("DELETE", headers);
  check(del.status === 200, `DELETE -> 200, got ${del.status}`);
  check((await ping(headers)).status === 404, "reuse after DELETE -> 404");
  console.log(`ok: unknown session 404, bad version 400, DELETE then reuse 404 (session ${session.slice(0, 8)}...)`);

  // 50 clients with open SSE streams.
  const clients = [];
  for (let i = 0; i < 50; i++) clients.push(await newSession());
  const streams = await Promise.all(clients.flatMap(({ headers: h }, i) => [
    openStream("POST", h, { jsonrpc: "2.0", id: 1000 + i, method: "tools/call",
                            params: { name: "test_long_running", arguments: { seconds: 300, steps: 3000 }, _meta: { progressToken: i } } }, true),
    openStream("GET", { ...h, Accept: "text/event-stream" }, undefined, false),
  ]));
  console.log(`ok: ${streams.length} SSE streams open (50 tool-call streams, 50 GET streams)`);
  const fresh = await newSession();
  const freshPing = await ping(fresh.headers, 7);
  check(freshPing.status === 200 && JSON.parse(freshPing.body).id === 7, `ping with 100 open streams: ${freshPing.status}`);
  console.log("ok: a new client initializes and gets its ping answered while 100 streams are open");

  // Ending the sessions closes their streams (and cancels the running calls).
  await Promise.all(clients.map(({ headers: h }) => request("DELETE", h)));
  await Promise.all(streams.map((s) => s.ended));
  console.log("ok: DELETE closed every stream");
  console.log("PASS");
} catch (e) {
  console.error(`FAIL: ${e?.stack ?? e}`);
  process.exitCode = 1;
} finally {
  clearTimeout(watchdog);
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
