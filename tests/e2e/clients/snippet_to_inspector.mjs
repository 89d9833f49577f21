// Turns one of clients/*.json (VS Code, Cursor, Claude Code or Gemini CLI format) into the
// MCP Inspector's --config format, reading the fields each client reads, so a wrong field name in
// a snippet fails the test instead of being ignored:
//   node snippet_to_inspector.mjs SNIPPET KOPT_BIN PORT CWD > inspector.json
// The snippet's `kopt` command becomes KOPT_BIN, port 8765 in a URL becomes PORT, and stdio
// servers start in CWD (a client starts them in its project folder).
import { readFileSync } from "node:fs";
import { basename } from "node:path";

const [snippetPath, koptBin, port, cwd] = process.argv.slice(2);
if (!snippetPath || !koptBin || !port || !cwd) {
  console.error("usage: node snippet_to_inspector.mjs SNIPPET KOPT_BIN PORT CWD");
  process.exit(2);
}
const file = basename(snippetPath);
const fail = (why) => {
  console.error(`${file}: ${why}`);
  process.exit(1);
};

let doc;
try {
  doc = JSON.parse(readFileSync(snippetPath, "utf8"));
} catch (e) {
  fail(`does not parse as JSON: ${e.message}`);
}

// Which client's format, by file name (the README's table).
const client = file.startsWith("vscode") ? "vscode" : file.startsWith("gemini") ? "gemini"
  : file.startsWith("cursor") ? "cursor" : file.startsWith("claude") ? "claude" : fail("unknown client");
const servers = client === "vscode" ? doc.servers : doc.mcpServers;
if (!servers || typeof servers !== "object") fail(`no ${client === "vscode" ? "servers" : "mcpServers"} object`);
const entry = servers.turbo;
if (!entry) fail("no server named turbo (tool ids must read mcp__turbo__...)");

const localUrl = (url) => {
  if (typeof url !== "string") fail("URL is not a string");
  const u = new URL(url);
  if (u.hostname !== "127.0.0.1" && u.hostname !== "localhost") fail(`URL ${url} is not loopback`);
  if (u.pathname !== "/mcp") fail(`URL ${url} does not end in /mcp`);
  if (u.port !== "8765") fail(`URL ${url} does not use the documented port 8765`);
  u.port = port;
  return u.toString();
};
const stdio = (e) => {
  if (e.command !== "kopt") fail(`command is ${JSON.stringify(e.command)}, expected "kopt"`);
  if (!Array.isArray(e.args) || e.args[0] !== "serve") fail("args must start with \"serve\"");
  return { type: "stdio", command: koptBin, args: e.args, cwd };
};

let out;
switch (client) {
  case "vscode":
    if (entry.type === "stdio") out = stdio(entry);
    else if (entry.type === "http") out = { type: "streamable-http", url: localUrl(entry.url) };
    else fail(`VS Code type must be "stdio" or "http", not ${JSON.stringify(entry.type)}`);
    break;
  case "gemini":
    // Gemini CLI: command -> stdio, httpUrl -> Streamable HTTP, url -> the old SSE transport.
    if (entry.url) fail("Gemini CLI reads `url` as SSE; use httpUrl for Streamable HTTP");
    out = entry.httpUrl ? { type: "streamable-http", url: localUrl(entry.httpUrl) } : stdio(entry);
    break;
  case "cursor":
    out = entry.url ? { type: "streamable-http", url: localUrl(entry.url) } : stdio(entry);
    break;
  case "claude":
    if (entry.type === "http") out = { type: "streamable-http", url: localUrl(entry.url) };
    else if (entry.type === "stdio" || entry.type === undefined) out = stdio(entry);
    else fail(`Claude Code type must be "stdio" or "http", not ${JSON.stringify(entry.type)}`);
    break;
}
console.log(JSON.stringify({ mcpServers: { turbo: out } }, null, 2));
