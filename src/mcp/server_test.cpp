#include "mcp/server.h"

#include <doctest/doctest.h>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

using namespace kopt::mcp;

namespace {

// Records what the session sends; tests wait for a message by predicate (bounded by a deadline
// that only matters when the code under test is broken).
class FakeOutbound : public Outbound {
 public:
  struct Sent {
    json message;
    std::optional<rpc::RequestId> related;
  };

  bool send(const json& message, const std::optional<rpc::RequestId>& related) override {
    std::lock_guard<std::mutex> lock(mutex_);
    sent_.push_back({message, related});
    cv_.notify_all();
    return accept;
  }
  void finish(const rpc::RequestId& id) override {
    std::lock_guard<std::mutex> lock(mutex_);
    finished_.push_back(id);
    cv_.notify_all();
  }

  Sent waitFor(const std::function<bool(const json&)>& match) {
    std::unique_lock<std::mutex> lock(mutex_);
    std::optional<Sent> found;
    cv_.wait_for(lock, std::chrono::seconds(10), [&] {
      for (const auto& s : sent_) {
        if (match(s.message)) {
          found = s;
          return true;
        }
      }
      return false;
    });
    REQUIRE_MESSAGE(found.has_value(), "expected message never sent");
    return *found;
  }
  Sent response(const json& id) {
    return waitFor([&](const json& m) { return !m.is_array() && m.contains("id") && m["id"] == id && !m.contains("method"); });
  }
  void waitFinished(const rpc::RequestId& id) {
    std::unique_lock<std::mutex> lock(mutex_);
    REQUIRE(cv_.wait_for(lock, std::chrono::seconds(10), [&] {
      return std::find(finished_.begin(), finished_.end(), id) != finished_.end();
    }));
  }
  std::vector<Sent> all() {
    std::lock_guard<std::mutex> lock(mutex_);
    return sent_;
  }
  std::vector<json> withMethod(const std::string& method) {
    std::vector<json> out;
    for (const auto& s : all()) {
      if (s.message.is_object() && s.message.value("method", "") == method) out.push_back(s.message);
    }
    return out;
  }
  bool accept = true;

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<Sent> sent_;
  std::vector<rpc::RequestId> finished_;
};

// A latch the test opens to let a blocking tool finish.
struct Gate {
  std::mutex mutex;
  std::condition_variable cv;
  bool open = false;
  bool entered = false;
  void enter() {
    std::unique_lock<std::mutex> lock(mutex);
    entered = true;
    cv.notify_all();
  }
  void waitEntered() {
    std::unique_lock<std::mutex> lock(mutex);
    REQUIRE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return entered; }));
  }
  void release() {
    std::lock_guard<std::mutex> lock(mutex);
    open = true;
    cv.notify_all();
  }
  // Waits until released or `token` is cancelled; true when cancelled.
  bool waitOrCancel(const kopt::CancellationToken& token) {
    std::unique_lock<std::mutex> lock(mutex);
    while (!open && !token.cancelled()) cv.wait_for(lock, std::chrono::milliseconds(2));
    return token.cancelled();
  }
};

json request(int id, const std::string& method, json params = json::object()) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

json notification(const std::string& method, json params = json::object()) {
  return json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

json initializeRequest(const std::string& version, json capabilities = json::object()) {
  return request(1, "initialize",
                 json{{"protocolVersion", version}, {"capabilities", capabilities}, {"clientInfo", {{"name", "t"}, {"version", "1"}}}});
}

struct Fixture {
  Registry registry;
  FakeOutbound out;
  Gate gate;
  std::atomic<int> cancelledSeen{0};

  Fixture() {
    ToolSpec blocking;
    blocking.name = "blocking";
    blocking.description = "waits for the test";
    blocking.handler = [this](const json&, RequestContext& ctx) {
      gate.enter();
      if (gate.waitOrCancel(ctx.cancellation())) {
        ++cancelledSeen;
        return ToolResult::error("cancelled");
      }
      return ToolResult::text("released");
    };
    registry.addTool(blocking);

    ToolSpec progress;
    progress.name = "progress";
    progress.description = "reports progress, some of it out of order";
    progress.handler = [](const json&, RequestContext& ctx) {
      ctx.progress(1, 4);
      ctx.progress(1, 4);    // not increasing: dropped
      ctx.progress(0.5, 4);  // going back: dropped
      ctx.progress(2, 4, "half");
      return ToolResult::text("done");
    };
    registry.addTool(progress);

    ToolSpec logs;
    logs.name = "logs";
    logs.description = "logs at two levels";
    logs.handler = [](const json&, RequestContext& ctx) {
      ctx.log(LogLevel::Info, "t", "info message");
      ctx.log(LogLevel::Error, "t", json{{"detail", 1}});
      return ToolResult::text("logged");
    };
    registry.addTool(logs);

    ToolSpec ask;
    ask.name = "ask";
    ask.description = "asks the client";
    ask.inputSchema = json::parse(R"({"type":"object","properties":{"timeout_ms":{"type":"integer"}}})");
    ask.handler = [](const json& args, RequestContext& ctx) {
      std::string error;
      auto answer = ctx.requestClient("elicitation/create", json{{"message", "name?"}},
                                      std::chrono::milliseconds(args.value("timeout_ms", 10000)), &error);
      if (!answer) return ToolResult::error(error);
      return ToolResult::text("answer: " + answer->dump());
    };
    registry.addTool(ask);

    ResourceSpec watched;
    watched.uri = "kopt://watched";
    watched.name = "watched";
    watched.read = [] { return std::vector<ResourceContents>{{"kopt://watched", "text/plain", std::string("w"), std::nullopt}}; };
    registry.addResource(watched);
  }
};

}  // namespace

TEST_CASE("initialize negotiates the version and declares only what exists") {
  Registry empty;
  FakeOutbound out;
  Session session(empty, ServerInfo{}, out);
  session.receive(request(0, "ping"));  // ping works before initialize
  CHECK(out.response(0).message["result"] == json::object());
  session.receive(request(5, "tools/list"));
  CHECK(out.response(5).message["error"]["code"] == -32600);  // not initialized yet

  session.receive(initializeRequest("2025-06-18"));
  json result = out.response(1).message["result"];
  CHECK(result["protocolVersion"] == "2025-06-18");
  CHECK(result["capabilities"] == json{{"logging", json::object()}});
  CHECK(result["serverInfo"]["name"] == "kopt");
  session.receive(initializeRequest("2025-06-18"));  // twice
  CHECK(out.all().back().message["error"]["code"] == -32600);
  session.receive(request(6, "tools/list"));  // no tools registered: the method does not exist here
  CHECK(out.response(6).message["error"]["code"] == -32601);

  FakeOutbound out2;
  Session other(empty, ServerInfo{}, out2);
  other.receive(initializeRequest("1999-01-01"));
  CHECK(out2.response(1).message["result"]["protocolVersion"] == "2025-11-25");
  FakeOutbound out3;
  Session third(empty, ServerInfo{}, out3);
  third.receive(request(1, "initialize", json::object()));
  CHECK(out3.response(1).message["error"]["code"] == -32602);
}

TEST_CASE("capabilities follow the registry") {
  Fixture f;
  Session session(f.registry, ServerInfo{}, f.out);
  session.receive(initializeRequest("2025-11-25"));
  json caps = f.out.response(1).message["result"]["capabilities"];
  CHECK(caps.contains("tools"));
  CHECK(caps["resources"]["subscribe"] == true);
  CHECK_FALSE(caps.contains("prompts"));
  CHECK_FALSE(caps.contains("completions"));
}

TEST_CASE("notifications are never answered; unknown methods are -32601") {
  Fixture f;
  Session session(f.registry, ServerInfo{}, f.out);
  session.receive(initializeRequest("2025-11-25"));
  const auto before = f.out.all().size();
  session.receive(notification("notifications/initialized"));
  session.receive(notification("notifications/whatever"));
  session.receive(json{{"jsonrpc", "2.0"}, {"method", "x"}, {"params", {1, 2}}});  // broken notification
  CHECK(f.out.all().size() == before);
  session.receive(request(2, "nope/nope"));
  CHECK(f.out.response(2).message["error"]["code"] == -32601);
  session.receiveText("{not json");
  CHECK(f.out.all().back().message["error"]["code"] == -32700);
}

TEST_CASE("tool calls run off the reader thread; ping is answered while one runs") {
  Fixture f;
  Session session(f.registry, ServerInfo{}, f.out);
  session.receive(initializeRequest("2025-11-25"));
  session.receive(request(2, "tools/call", json{{"name", "blocking"}}));
  f.gate.waitEntered();
  session.receive(request(3, "ping"));  // returns although the tool is still blocked
  CHECK(f.out.response(3).message["result"] == json::object());
  CHECK(session.runningCalls() == 1);
  f.gate.release();
  CHECK(f.out.response(2).message["result"]["content"][0]["text"] == "released");
}

TEST_CASE("notifications/cancelled fires the token and suppresses the response") {
  Fixture f;
  Session session(f.registry, ServerInfo{}, f.out);
  session.receive(initializeRequest("2025-11-25"));
  session.receive(request(2, "tools/call", json{{"name", "blocking"}}));
  f.gate.waitEntered();
  session.receive(notification("notifications/cancelled", json{{"requestId", 2}, {"reason", "test"}}));
  f.out.waitFinished(rpc::RequestId(2));
  CHECK(f.cancelledSeen == 1);
  session.receive(request(3, "ping"));
  f.out.response(3);
  for (const auto& s : f.out.all()) CHECK_FALSE((s.message.contains("id") && s.message["id"] == 2));
  // Cancelling something unknown or finished is ignored.
  session.receive(notification("notifications/cancelled", json{{"requestId", 99}}));
  session.receive(notification("notifications/cancelled", json{{"requestId", 2}}));
}

TEST_CASE("shutdown cancels running calls without answering them") {
  Fixture f;
  {
    Session session(f.registry, ServerInfo{}, f.out);
    session.receive(initializeRequest("2025-11-25"));
    session.receive(request(2, "tools/call", json{{"name", "blocking"}}));
    f.gate.waitEntered();
    session.shutdown();
    CHECK(session.runningCalls() == 0);
  }
  CHECK(f.cancelledSeen == 1);
  for (const auto& s : f.out.all()) CHECK_FALSE((s.message.contains("id") && s.message["id"] == 2));
}

TEST_CASE("progress only with a token, strictly increasing, related to the call") {
  Fixture f;
  Session session(f.registry, ServerInfo{}, f.out);
  session.receive(initializeRequest("2025-11-25"));
  session.receive(request(2, "tools/call", json{{"name", "progress"}}));
  f.out.response(2);
  CHECK(f.out.withMethod("notifications/progress").empty());

  session.receive(request(3, "tools/call", json{{"name", "progress"}, {"_meta", {{"progressToken", "tok"}}}}));
  f.out.response(3);
  auto progress = f.out.withMethod("notifications/progress");
  REQUIRE(progress.size() == 2);
  CHECK(progress[0]["params"]["progressToken"] == "tok");
  CHECK(progress[0]["params"]["progress"] == 1);
  CHECK(progress[1]["params"]["progress"] == 2);
  CHECK(progress[1]["params"]["message"] == "half");
  for (const auto& s : f.out.all()) {
    if (s.message.value("method", "") == "notifications/progress") CHECK(s.related == rpc::RequestId(3));
  }
}

TEST_CASE("logging/setLevel filters notifications/message") {
  Fixture f;
  Session session(f.registry, ServerInfo{}, f.out);
  session.receive(initializeRequest("2025-11-25"));
  session.receive(request(2, "logging/setLevel", json{{"level", "loud"}}));
  CHECK(f.out.response(2).message["error"]["code"] == -32602);
  session.receive(request(3, "logging/setLevel", json{{"level", "warning"}}));
  CHECK(f.out.response(3).message["result"] == json::object());
  session.receive(request(4, "tools/call", json{{"name", "logs"}}));
  f.out.response(4);
  auto logs = f.out.withMethod("notifications/message");
  REQUIRE(logs.size() == 1);
  CHECK(logs[0]["params"]["level"] == "error");
  CHECK(logs[0]["params"]["logger"] == "t");
  CHECK(logs[0]["params"]["data"]["detail"] == 1);
}

TEST_CASE("argument errors are isError results; unknown tool and bad params are -32602") {
  Fixture f;
  Session session(f.registry, ServerInfo{}, f.out);
  session.receive(initializeRequest("2025-11-25"));
  session.receive(request(2, "tools/call", json{{"name", "ask"}, {"arguments", {{"timeout_ms", "x"}}}}));
  json bad = f.out.response(2).message["result"];
  CHECK(bad["isError"] == true);
  CHECK(bad["content"][0]["text"].get<std::string>().find("timeout_ms") != std::string::npos);
  session.receive(request(3, "tools/call", json{{"name", "missing"}}));
  CHECK(f.out.response(3).message["error"]["code"] == -32602);
  session.receive(request(4, "tools/call", json::object()));
  CHECK(f.out.response(4).message["error"]["code"] == -32602);
  session.receive(request(5, "tools/call", json{{"name", "ask"}, {"arguments", "x"}}));
  CHECK(f.out.response(5).message["error"]["code"] == -32602);
}

TEST_CASE("batches: answered as one array under 2025-03-26, refused otherwise") {
  Fixture f;
  Session session(f.registry, ServerInfo{}, f.out);
  session.receive(initializeRequest("2025-11-25"));
  session.receive(json::array({request(2, "ping")}));
  CHECK(f.out.all().back().message["error"]["code"] == -32600);

  FakeOutbound out;
  Session old(f.registry, ServerInfo{}, out);
  old.receive(initializeRequest("2025-03-26"));
  old.receive(json::array({request(2, "ping"), notification("notifications/initialized"),
                           request(3, "tools/call", json{{"name", "progress"}}), json{{"bad", 1}}}));
  auto batch = out.waitFor([](const json& m) { return m.is_array(); });
  REQUIRE(batch.message.size() == 3);  // ping, the tool call, the invalid element; not the notification
  CHECK(batch.related == rpc::RequestId(2));
  int answered = 0;
  for (const auto& r : batch.message) answered += r.contains("result");
  CHECK(answered == 2);
}

TEST_CASE("server->client requests are routed with the call and answered through responses") {
  Fixture f;
  Session session(f.registry, ServerInfo{}, f.out);
  session.receive(initializeRequest("2025-11-25", json{{"elicitation", json::object()}}));
  session.receive(request(2, "tools/call", json{{"name", "ask"}}));
  auto ask = f.out.waitFor([](const json& m) { return m.value("method", "") == "elicitation/create"; });
  CHECK(ask.related == rpc::RequestId(2));
  session.receive(json{{"jsonrpc", "2.0"}, {"id", ask.message["id"]}, {"result", {{"action", "accept"}}}});
  CHECK(f.out.response(2).message["result"]["content"][0]["text"] == "answer: {\"action\":\"accept\"}");

  // Timeout: the request is cancelled towards the client and the tool gets an error.
  session.receive(request(3, "tools/call", json{{"name", "ask"}, {"arguments", {{"timeout_ms", 20}}}}));
  json timedOut = f.out.response(3).message["result"];
  CHECK(timedOut["isError"] == true);
  CHECK(timedOut["content"][0]["text"].get<std::string>().find("timed out") != std::string::npos);
  CHECK(f.out.withMethod("notifications/cancelled").size() == 1);
}

TEST_CASE("server->client requests need the client capability and an open channel") {
  Fixture f;
  Session session(f.registry, ServerInfo{}, f.out);
  session.receive(initializeRequest("2025-11-25"));  // no elicitation capability
  session.receive(request(2, "tools/call", json{{"name", "ask"}}));
  json result = f.out.response(2).message["result"];
  CHECK(result["isError"] == true);
  CHECK(result["content"][0]["text"].get<std::string>().find("elicitation") != std::string::npos);

  FakeOutbound closed;
  closed.accept = false;
  Session noChannel(f.registry, ServerInfo{}, closed);
  noChannel.receive(initializeRequest("2025-11-25", json{{"elicitation", json::object()}}));
  noChannel.receive(request(2, "tools/call", json{{"name", "ask"}}));
  CHECK(closed.response(2).message["result"]["content"][0]["text"].get<std::string>().find("no open channel") != std::string::npos);
}

TEST_CASE("resource subscriptions deliver notifications/resources/updated") {
  Fixture f;
  Session session(f.registry, ServerInfo{}, f.out);
  session.receive(initializeRequest("2025-11-25"));
  session.receive(request(2, "resources/subscribe", json{{"uri", "kopt://nope"}}));
  CHECK(f.out.response(2).message["error"]["code"] == -32002);
  session.receive(request(3, "resources/subscribe", json{{"uri", "kopt://watched"}}));
  f.out.response(3);
  f.registry.notifyResourceUpdated("kopt://watched");
  f.registry.notifyResourceUpdated("kopt://other");
  auto updates = f.out.withMethod("notifications/resources/updated");
  REQUIRE(updates.size() == 1);
  CHECK(updates[0]["params"]["uri"] == "kopt://watched");
  session.receive(request(4, "resources/unsubscribe", json{{"uri", "kopt://watched"}}));
  f.out.response(4);
  f.registry.notifyResourceUpdated("kopt://watched");
  CHECK(f.out.withMethod("notifications/resources/updated").size() == 1);
}

TEST_CASE("a request id in use by a running call is refused") {
  Fixture f;
  Session session(f.registry, ServerInfo{}, f.out);
  session.receive(initializeRequest("2025-11-25"));
  session.receive(request(2, "tools/call", json{{"name", "blocking"}}));
  f.gate.waitEntered();
  session.receive(request(2, "tools/call", json{{"name", "blocking"}}));
  CHECK(f.out.response(2).message["error"]["code"] == -32600);
  f.gate.release();
}
