// libFuzzer target: what a client's bytes reach over stdio: the line framer, JSON-RPC parsing and
// classification, and an MCP session (initialize, batches, every method, tools/call with argument
// validation against a schema) on arbitrary input. Replies go nowhere; the session is shut down
// after each input, so a call thread that never ends would show as a hang.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "mcp/line_framer.h"
#include "mcp/registry.h"
#include "mcp/server.h"

namespace {

using kopt::mcp::json;

class Discard : public kopt::mcp::Outbound {
 public:
  bool send(const json&, const std::optional<kopt::mcp::rpc::RequestId>&) override { return true; }
};

const kopt::mcp::Registry& registry() {
  static kopt::mcp::Registry* r = [] {
    auto* reg = new kopt::mcp::Registry();
    kopt::mcp::ToolSpec echo;
    echo.name = "echo";
    echo.description = "returns its text";
    echo.inputSchema = json::parse(
        R"({"type":"object","properties":{"text":{"type":"string","maxLength":64},"n":{"type":"integer","minimum":0}},"required":["text"],"additionalProperties":false})");
    echo.handler = [](const json& args, kopt::mcp::RequestContext&) {
      return kopt::mcp::ToolResult::text(args.value("text", ""));
    };
    reg->addTool(echo);
    return reg;
  }();
  return *r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Discard out;
  kopt::mcp::Session session(registry(), kopt::mcp::ServerInfo{}, out);
  kopt::mcp::LineFramer framer(1 << 20);
  auto onLine = [&](std::string_view line) { session.receiveText(line); };
  auto onOverflow = [](std::size_t) {};
  framer.feed(std::string_view(reinterpret_cast<const char*>(data), size), onLine, onOverflow);
  framer.finish(onLine, onOverflow);
  session.drain(std::chrono::milliseconds(1000));
  session.shutdown();
  return 0;
}
