// kopt serve: builds the registry (kopt's catalogue, plus the conformance fixtures when asked) and
// serves it over stdio (default) or Streamable HTTP. Everything it prints goes to stderr: stdout
// belongs to the protocol.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "cli/commands.h"
#include "exec/orphans.h"
#include "mcp/http_transport.h"
#include "mcp/registry.h"
#include "mcp/stdio_transport.h"
#include "tools/catalog.h"
#include "tools/conformance_fixtures.h"
#include "util/text.h"

namespace kopt::cli {

namespace {

const char* kServeUsage = R"(Usage: kopt serve [--stdio] [--conformance-fixtures] [--workspace DIR]
       kopt serve --http HOST:PORT [--token-file FILE | --insecure-no-auth] [--port-file FILE] [--conformance-fixtures] [--workspace DIR]

  --stdio                 MCP over stdin/stdout (the default)
  --http HOST:PORT        Streamable HTTP at http://HOST:PORT/mcp (PORT 0 picks a free port)
  --token-file FILE       require "Authorization: Bearer <token>" with the token in FILE (needed
                          when HOST is not loopback: kopt's tools run commands)
  --insecure-no-auth      serve a non-loopback HOST without a token, knowingly (prints a warning)
  --port-file FILE        write the bound port to FILE once listening (for scripts using port 0)
  --conformance-fixtures  also register the MCP conformance-suite fixtures (tests only)
  --workspace DIR         base directory for relative campaign paths (default: current directory)
  --tools all|loop        all tools (default), or only what the loop calls: its steps, poll_job,
                          campaign_status and parse_bench_csv (a smaller tools/list for the agent)
)";

mcp::ServerInfo serverInfo() {
  mcp::ServerInfo info;
  info.name = "kopt";
  info.title = "kopt: GPU-kernel optimization referee";
  info.version = KOPT_VERSION_STRING;  // the project's version, from CMake
  return info;
}

struct ServeOptions {
  bool http = false;
  std::string host = "127.0.0.1";
  int port = 0;
  std::optional<std::filesystem::path> tokenFile;
  std::optional<std::filesystem::path> portFile;
  bool insecureNoAuth = false;
  tools::CatalogOptions setup;
};

int usageError(const std::string& message) {
  std::cerr << "kopt serve: " << message << "\n\n" << kServeUsage;
  return 2;
}

bool parseHostPort(const std::string& text, std::string& host, int& port) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  host = text.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  const std::string digits = text.substr(colon + 1);
  if (digits.empty() || digits.size() > 5 || digits.find_first_not_of("0123456789") != std::string::npos) return false;
  port = std::stoi(digits);
  return port <= 65535;
}

std::optional<std::string> readToken(const std::filesystem::path& file, std::string& error) {
  std::ifstream in(file);
  if (!in) {
    error = "cannot read --token-file " + file.string();
    return std::nullopt;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string token = buffer.str();
  const auto first = token.find_first_not_of(" \t\r\n");
  const auto last = token.find_last_not_of(" \t\r\n");
  token = first == std::string::npos ? "" : token.substr(first, last - first + 1);
  if (token.empty() || token.find_first_of(" \t\r\n") != std::string::npos) {
    error = "--token-file " + file.string() + " must hold one token (non-empty, no whitespace)";
    return std::nullopt;
  }
  return token;
}

// Writes via a temporary file and rename, so a script polling for the file never reads half of it.
bool writePortFile(const std::filesystem::path& file, int port) {
  const auto tmp = file.string() + ".tmp";
  {
    std::ofstream out(tmp);
    if (!(out << port << "\n")) return false;
  }
  std::error_code ec;
  std::filesystem::rename(tmp, file, ec);
  return !ec;
}

// SIGUSR2 is only used internally, to wake the signal thread when serving ended on its own.
sigset_t stopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGUSR2);
  return signals;
}

int serveStdio(const mcp::Registry& registry) {
  const int protocolFd = mcp::takeOverStdout();
  if (protocolFd < 0) {
    std::perror("kopt serve: cannot take over stdout");
    return 1;
  }
  // SIGTERM/SIGINT (a client giving up on us) cancel running calls, so their child processes are
  // stopped by their executors instead of being orphaned by a killed server.
  sigset_t signals = stopSignals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  mcp::StdioTransport transport(STDIN_FILENO, protocolFd);
  std::thread signalWaiter([&] {
    int received = 0;
    sigwait(&signals, &received);
    if (received != SIGUSR2) transport.stop();
  });
  {
    mcp::Session session(registry, serverInfo(), transport);
    transport.run(session);
  }
  pthread_kill(signalWaiter.native_handle(), SIGUSR2);  // wakes the waiter if run() ended on EOF
  signalWaiter.join();
  close(protocolFd);
  return 0;
}

int serveHttp(const mcp::Registry& registry, const ServeOptions& options) {
  mcp::HttpOptions http;
  http.host = options.host;
  http.port = options.port;
  if (options.tokenFile) {
    std::string error;
    auto token = readToken(*options.tokenFile, error);
    if (!token) return usageError(error);
    http.bearerToken = *token;
  }
  // SIGINT/SIGTERM are taken by one thread with sigwait, so the server stops cleanly (sessions
  // shut down, calls cancelled) instead of dying mid-write.
  sigset_t signals = stopSignals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  mcp::HttpTransport server(registry, serverInfo(), http);
  std::string error;
  if (!server.bind(&error)) {
    std::cerr << "kopt serve: " << error << "\n";
    return 1;
  }
  std::cerr << "kopt serve: MCP over Streamable HTTP at http://" << (options.host.find(':') != std::string::npos ? "[" + options.host + "]" : options.host)
            << ":" << server.port() << "/mcp" << (http.bearerToken ? " (bearer token required)" : "") << "\n";
  if (options.portFile && !writePortFile(*options.portFile, server.port())) {
    std::cerr << "kopt serve: cannot write --port-file " << options.portFile->string() << "\n";
    return 1;
  }
  std::thread signalWaiter([&] {
    int received = 0;
    sigwait(&signals, &received);
    if (received != SIGUSR2) std::cerr << "kopt serve: signal " << received << ", stopping\n";
    server.stop();
  });
  server.serve();
  pthread_kill(signalWaiter.native_handle(), SIGUSR2);  // wakes the waiter if serve() ended on its own
  signalWaiter.join();
  return 0;
}

}  // namespace

int serveCommand(const Args& args) {
  ServeOptions options;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* flag) -> std::optional<std::string> {
      if (i + 1 >= args.size()) return std::nullopt;
      (void)flag;
      return args[++i];
    };
    if (a == "--help" || a == "-h") {
      std::cerr << kServeUsage;
      return 0;
    } else if (a == "--stdio") {
      options.http = false;
    } else if (a == "--http") {
      auto v = value("--http");
      if (!v || !parseHostPort(*v, options.host, options.port)) return usageError("--http needs HOST:PORT, e.g. 127.0.0.1:8765");
      options.http = true;
    } else if (a == "--token-file") {
      auto v = value("--token-file");
      if (!v) return usageError("--token-file needs a file name");
      options.tokenFile = *v;
    } else if (a == "--insecure-no-auth") {
      options.insecureNoAuth = true;
    } else if (a == "--port-file") {
      auto v = value("--port-file");
      if (!v) return usageError("--port-file needs a file name");
      options.portFile = *v;
    } else if (a == "--workspace") {
      auto v = value("--workspace");
      if (!v) return usageError("--workspace needs a directory");
      options.setup.workspaceRoot = *v;
    } else if (a == "--tools") {
      auto v = value("--tools");
      if (!v || (*v != "all" && *v != "loop")) return usageError("--tools needs all or loop");
      options.setup.toolSet = *v == "loop" ? tools::CatalogOptions::ToolSet::Loop : tools::CatalogOptions::ToolSet::All;
    } else if (a == "--conformance-fixtures") {
      options.setup.conformanceFixtures = true;
    } else {
      return usageError("unknown option '" + a + "'");
    }
  }
  if (!options.http && (options.tokenFile || options.portFile || options.insecureNoAuth)) {
    return usageError("--token-file, --insecure-no-auth and --port-file only apply to --http");
  }
  // A non-loopback bind without a token let anyone who reaches the port run define_target (which
  // runs commands); the Origin check cannot help there, since the caller sets both Origin and Host.
  if (options.http && !mcp::isLoopbackBind(options.host)) {
    if (!options.tokenFile && !options.insecureNoAuth) {
      return usageError("--http " + options.host + " listens beyond this machine and kopt's tools run commands: give "
                        "--token-file FILE (clients send Authorization: Bearer <token>), bind 127.0.0.1, or pass "
                        "--insecure-no-auth to serve without a token knowingly");
    }
    if (!options.tokenFile) {
      std::cerr << "kopt serve: WARNING: serving " << options.host
                << " without a token (--insecure-no-auth): anyone who reaches this port can run commands as you\n";
    }
  }
  signal(SIGPIPE, SIG_IGN);  // a vanished client shows up as a failed write, not a dead server

  // Builds and benches of a kopt server that was killed would run beside this one's: end them
  // before anything runs, and mark this server's own children for the next one to find.
  if (const std::string ended = exec::takeOverFromDeadServers("kopt serve"); !ended.empty()) std::cerr << ended << "\n";

  if (options.setup.workspaceRoot.empty()) options.setup.workspaceRoot = std::filesystem::current_path();
  options.setup.longLived = true;
  mcp::Registry registry;
  try {
    tools::registerCatalog(registry, options.setup);
    // The catalogue may already have added the fixtures when asked to; register them only once.
    if (options.setup.conformanceFixtures && !registry.findTool("test_simple_text")) {
      tools::registerConformanceFixtures(registry);
    }
  } catch (const std::exception& e) {
    std::cerr << "kopt serve: cannot build the tool catalogue: " << e.what() << "\n";
    return 1;
  }
  return options.http ? serveHttp(registry, options) : serveStdio(registry);
}

}  // namespace kopt::cli
