#include "mcp/http_transport.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <iostream>
#include <list>
#include <map>
#include <mutex>
#include <random>

#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "mcp/elastic_pool.h"
#include "mcp/guarded_http_server.h"
#include "mcp/protocol_version.h"

namespace kopt::mcp {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// "localhost:8080" -> "localhost", "[::1]:80" -> "::1", "example.com" -> "example.com".
std::string hostOnly(const std::string& hostPort) {
  if (!hostPort.empty() && hostPort.front() == '[') {
    const auto close = hostPort.find(']');
    return close == std::string::npos ? hostPort : hostPort.substr(1, close - 1);
  }
  const auto colon = hostPort.find(':');
  return colon == std::string::npos ? hostPort : hostPort.substr(0, colon);
}

bool isLoopbackName(const std::string& host) {
  const std::string h = lower(host);
  return h == "localhost" || h == "127.0.0.1" || h == "::1";
}

// cpp-httplib 0.11.4 listens with a backlog of 5 and offers no way to change it. When more clients
// connect at once (100 SSE streams opening together), the kernel drops the handshakes that do not
// fit; a client whose request then arrives after the server's keep-alive wait gets a reset. Calling
// listen() again on a listening socket only updates its backlog, so find ours and widen it.
void widenListenBacklog(int port) {
  for (int fd = 3; fd < 65536; ++fd) {
    int accepting = 0;
    socklen_t length = sizeof accepting;
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &length) != 0) {
      if (errno == EBADF && fd > 1024) break;  // past the descriptors in use
      continue;
    }
    if (!accepting) continue;
    sockaddr_storage address{};
    socklen_t size = sizeof address;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) != 0) continue;
    int boundPort = -1;
    if (address.ss_family == AF_INET) boundPort = ntohs(reinterpret_cast<sockaddr_in*>(&address)->sin_port);
    if (address.ss_family == AF_INET6) boundPort = ntohs(reinterpret_cast<sockaddr_in6*>(&address)->sin6_port);
    if (boundPort == port) ::listen(fd, SOMAXCONN);
  }
}

// One SSE stream or one pending JSON answer: the messages routed to a POST (or to the GET stream)
// wait here until the connection's worker writes them.
struct Stream {
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<std::string> events;
  bool final = false;   // the response is queued: nothing follows it
  bool closed = false;  // ended without (more) messages: cancelled call, session end, shutdown
  bool sse = false;     // JSON mode carries only the response

  void push(const json& message, bool isFinal) {
    std::lock_guard<std::mutex> lock(mutex);
    events.push_back(rpc::serialize(message));
    final = final || isFinal;
    cv.notify_all();
  }
  void close() {
    std::lock_guard<std::mutex> lock(mutex);
    closed = true;
    cv.notify_all();
  }
};

bool isResponseMessage(const json& message) {
  return message.is_array() || (message.is_object() && !message.contains("method"));
}

// One Mcp-Session-Id: the protocol session plus the routing of its outgoing messages.
class HttpSession : public Outbound {
 public:
  HttpSession(std::string id, const Registry& registry, const ServerInfo& info)
      : id_(std::move(id)), session_(std::make_unique<Session>(registry, info, *this)) {}

  const std::string& id() const { return id_; }
  Session& session() { return *session_; }

  bool send(const json& message, const std::optional<rpc::RequestId>& related) override {
    std::shared_ptr<Stream> stream;
    const bool isFinal = isResponseMessage(message);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (related) {
        auto it = routes_.find(related->key());
        if (it != routes_.end()) {
          stream = it->second;
          if (!isFinal && !stream->sse) return false;  // a JSON answer carries nothing but the response
          if (isFinal) routes_.erase(it);
        }
      }
      // Session-wide notifications go on the GET stream; responses never do (the spec forbids it).
      if (!stream && !isFinal && getStream_ && !getStream_->closed) {
        getStream_->push(message, false);
        return true;
      }
    }
    if (!stream) return false;
    stream->push(message, isFinal);
    return true;
  }

  void finish(const rpc::RequestId& id) override {
    std::shared_ptr<Stream> stream;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = routes_.find(id.key());
      if (it == routes_.end()) return;
      stream = it->second;
      routes_.erase(it);
    }
    stream->close();
  }

  // Registers the stream that will carry the answer to request `id`; false if one already waits.
  bool addRoute(const rpc::RequestId& id, std::shared_ptr<Stream> stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    touch();
    return routes_.emplace(id.key(), std::move(stream)).second;
  }
  void dropRoute(const rpc::RequestId& id, const std::shared_ptr<Stream>& stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = routes_.find(id.key());
    if (it != routes_.end() && it->second == stream) routes_.erase(it);
  }
  bool openGetStream(std::shared_ptr<Stream> stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (getStream_ && !getStream_->closed) return false;
    getStream_ = std::move(stream);
    return true;
  }
  bool busy() {
    std::lock_guard<std::mutex> lock(mutex_);
    return !routes_.empty() || session_->runningCalls() > 0;
  }
  void touch() { lastUsed_ = std::chrono::steady_clock::now(); }
  std::chrono::steady_clock::time_point lastUsed() {
    std::lock_guard<std::mutex> lock(mutex_);
    return lastUsed_;
  }

  // Ends the session: running calls are cancelled, every open stream is closed.
  void close() {
    session_->shutdown();
    std::map<std::string, std::shared_ptr<Stream>> routes;
    std::shared_ptr<Stream> get;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      routes.swap(routes_);
      get = std::move(getStream_);
    }
    for (auto& [key, stream] : routes) stream->close();
    if (get) get->close();
  }

 private:
  const std::string id_;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Stream>> routes_;
  std::shared_ptr<Stream> getStream_;
  std::chrono::steady_clock::time_point lastUsed_ = std::chrono::steady_clock::now();
  std::unique_ptr<Session> session_;  // last: destroyed first, while the routes still exist
};

void jsonError(httplib::Response& res, int status, rpc::ErrorCode code, const std::string& message) {
  res.status = status;
  res.set_content(rpc::serialize(rpc::errorResponse(std::nullopt, rpc::Error(code, message))), "application/json");
}

}  // namespace

bool isLoopbackBind(const std::string& host) { return isLoopbackName(host) || host.rfind("127.", 0) == 0; }

bool isLoopbackHost(const std::string& hostHeader) { return isLoopbackName(hostOnly(hostHeader)); }

std::string originHost(const std::string& origin) {
  const auto scheme = origin.find("://");
  if (scheme == std::string::npos) return "";
  std::string rest = origin.substr(scheme + 3);
  const auto slash = rest.find('/');
  if (slash != std::string::npos) rest = rest.substr(0, slash);
  return hostOnly(rest);
}

bool constantTimeEquals(const std::string& a, const std::string& b) {
  // Compare every byte of the longer input whatever the content, so timing says nothing about
  // where a guess goes wrong; the length difference is folded into the result.
  const std::size_t n = std::max(a.size(), b.size());
  unsigned char diff = static_cast<unsigned char>(a.size() != b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= static_cast<unsigned char>(x ^ y);
  }
  return diff == 0;
}

std::string newSessionId() {
  static const char* digits = "0123456789abcdef";
  std::random_device random;  // /dev/urandom on Linux
  std::string id;
  for (int i = 0; i < 8; ++i) {
    std::uint32_t word = random();
    for (int j = 0; j < 8; ++j, word >>= 4) id += digits[word & 15];
  }
  return id;
}

struct HttpTransport::Impl {
  const Registry& registry;
  const ServerInfo info;
  const HttpOptions options;
  // Connection handling (request read limit, head readers) is kopt's: guarded_http_server.h.
  GuardedHttpServer server{options.connections};
  int boundPort = -1;
  std::atomic<bool> stopping{false};

  std::mutex sessionsMutex;
  std::map<std::string, std::shared_ptr<HttpSession>> sessions;

  Impl(const Registry& r, ServerInfo i, HttpOptions o) : registry(r), info(std::move(i)), options(std::move(o)) {
    const std::size_t maxThreads = options.maxWorkerThreads;
    server.new_task_queue = [maxThreads] { return new ElasticPool(maxThreads); };
    server.set_payload_max_length(options.maxBodyBytes);
    // An answer is a few small writes (status line and headers, then the body): with Nagle on, the
    // second waits for the client's delayed ACK, about 40 ms per keep-alive request (docs/robustness.md, item 4).
    // Set on the listening socket; Linux copies it to every accepted one.
    server.set_tcp_nodelay(true);
    // Keep-alive as served by GuardedHttpServer (ConnectionLimits: 1000 requests, 3 s idle, short
    // because an idle connection holds a worker and stop() waits for it); the values are set here
    // too because cpp-httplib announces them in its Keep-Alive header.
    server.set_keep_alive_max_count(1000);
    server.set_keep_alive_timeout(3);
    server.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      return admit(req, res) ? httplib::Server::HandlerResponse::Unhandled : httplib::Server::HandlerResponse::Handled;
    });
    server.Post("/mcp", [this](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& read) {
      std::string body;
      if (readCappedBody(req, res, read, body)) post(req, body, res);
    });
    server.Get("/mcp", [this](const httplib::Request& req, httplib::Response& res) { get(req, res); });
    server.Delete("/mcp", [this](const httplib::Request& req, httplib::Response& res) { del(req, res); });
    auto notAllowed = [](const httplib::Request&, httplib::Response& res) {
      res.set_header("Allow", "GET, POST, DELETE");
      jsonError(res, 405, rpc::ErrorCode::InvalidRequest, "Method not allowed: use POST (messages), GET (stream) or DELETE (end session)");
    };
    server.Put("/mcp", notAllowed);
    server.Patch("/mcp", notAllowed);
    server.Options("/mcp", notAllowed);
    server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
      jsonError(res, 500, rpc::ErrorCode::InternalError, "Internal error");
    });
  }

  // DNS-rebinding protection and authentication, before any routing.
  bool admit(const httplib::Request& req, httplib::Response& res) {
    GuardedHttpServer::headRead();
    // kopt has no OAuth: its discovery documents do not exist. A 401 there made Claude Code try
    // dynamic client registration and report that failure instead of using the configured
    // Authorization header; a 404 lets clients fall back to it.
    if (req.path.rfind("/.well-known/oauth-", 0) == 0) {
      jsonError(res, 404, rpc::ErrorCode::InvalidRequest, "Not found: kopt has no OAuth; send Authorization: Bearer <token>");
      return false;
    }
    const bool loopback = isLoopbackBind(options.host);
    const std::string host = req.get_header_value("Host");
    if (loopback && !host.empty() && !isLoopbackHost(host)) {
      jsonError(res, 403, rpc::ErrorCode::InvalidRequest, "Forbidden: Host '" + host + "' is not this loopback server");
      return false;
    }
    if (req.has_header("Origin")) {
      const std::string origin = req.get_header_value("Origin");
      const std::string originName = lower(originHost(origin));
      const bool ok = loopback ? isLoopbackName(originName) : (!originName.empty() && originName == lower(hostOnly(host)));
      if (!ok) {
        jsonError(res, 403, rpc::ErrorCode::InvalidRequest, "Forbidden: Origin '" + origin + "' is not allowed");
        return false;
      }
    }
    if (options.bearerToken) {
      const std::string auth = req.get_header_value("Authorization");
      const std::string prefix = "Bearer ";
      const bool ok = auth.size() > prefix.size() && lower(auth.substr(0, prefix.size())) == "bearer " &&
                      constantTimeEquals(auth.substr(prefix.size()), *options.bearerToken);
      if (!ok) {
        res.set_header("WWW-Authenticate", "Bearer");
        jsonError(res, 401, rpc::ErrorCode::InvalidRequest,
                  auth.empty() ? "Unauthorized: send Authorization: Bearer <token>" : "Unauthorized: wrong token");
        return false;
      }
    }
    return true;
  }

  std::shared_ptr<HttpSession> findSession(const httplib::Request& req, httplib::Response& res) {
    const std::string id = req.get_header_value("Mcp-Session-Id");
    if (id.empty()) {
      jsonError(res, 400, rpc::ErrorCode::InvalidRequest, "Bad Request: Mcp-Session-Id header required (send initialize first)");
      return nullptr;
    }
    std::shared_ptr<HttpSession> session;
    {
      std::lock_guard<std::mutex> lock(sessionsMutex);
      auto it = sessions.find(id);
      if (it != sessions.end()) session = it->second;
    }
    if (!session) {
      jsonError(res, 404, rpc::ErrorCode::InvalidRequest, "Session not found: it ended or never existed; initialize a new one");
      return nullptr;
    }
    // Checked only once a version was negotiated: before that the header cannot be judged.
    const std::string version = req.get_header_value("MCP-Protocol-Version");
    if (!version.empty() && !isSupportedProtocolVersion(version)) {
      jsonError(res, 400, rpc::ErrorCode::InvalidRequest, "Bad Request: unsupported MCP-Protocol-Version '" + version + "'");
      return nullptr;
    }
    res.set_header("Mcp-Session-Id", id);
    return session;
  }

  std::shared_ptr<HttpSession> createSession(httplib::Response& res) {
    std::shared_ptr<HttpSession> evicted;
    auto session = std::make_shared<HttpSession>(newSessionId(), registry, info);
    {
      std::lock_guard<std::mutex> lock(sessionsMutex);
      if (sessions.size() >= options.maxSessions) {
        // Clients often never DELETE; the least recently used idle session makes room.
        std::shared_ptr<HttpSession> oldest;
        for (auto& [id, s] : sessions) {
          if (!s->busy() && (!oldest || s->lastUsed() < oldest->lastUsed())) oldest = s;
        }
        if (!oldest) {
          jsonError(res, 503, rpc::ErrorCode::InternalError, "Too many active sessions; try again later");
          return nullptr;
        }
        sessions.erase(oldest->id());
        evicted = oldest;
      }
      sessions[session->id()] = session;
    }
    if (evicted) evicted->close();
    return session;
  }

  void removeSession(const std::string& id) {
    std::shared_ptr<HttpSession> session;
    {
      std::lock_guard<std::mutex> lock(sessionsMutex);
      auto it = sessions.find(id);
      if (it == sessions.end()) return;
      session = it->second;
      sessions.erase(it);
    }
    session->close();
  }

  static bool accepts(const httplib::Request& req, const char* type) {
    return req.get_header_value("Accept").find(type) != std::string::npos;
  }

  // The body of a POST, read here and capped while it arrives: cpp-httplib checks its own limit
  // against Content-Length only, and buffered a chunked body whole (100 MB, then a 400) before.
  // False with the answer set (413, 415 or 400); the connection then closes.
  //
  // A body a little over the cap is still read to its end and thrown away (at most
  // kDrainBeyondCap more bytes): a server that closes with unread bytes in its receive buffer makes
  // the kernel send a reset, and the client then loses the 413 it was about to read (seen as a
  // failed POST under load). Anything larger is cut off where it stands.
  static constexpr std::size_t kDrainBeyondCap = 64 * 1024;

  bool readCappedBody(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& read,
                      std::string& body) {
    auto refuse = [&res](int status, const std::string& message) {
      res.set_header("Connection", "close");
      jsonError(res, status, rpc::ErrorCode::InvalidRequest, message);
      return false;
    };
    if (lower(req.get_header_value("Content-Type")).find("application/json") == std::string::npos) {
      return refuse(415, "Unsupported Media Type: POST needs Content-Type: application/json");
    }
    const std::size_t cap = options.maxBodyBytes;
    const std::size_t drainLimit = cap + kDrainBeyondCap;
    const bool declared = req.has_header("Content-Length");
    const unsigned long long declaredLength =
        declared ? std::strtoull(req.get_header_value("Content-Length").c_str(), nullptr, 10) : 0;
    bool tooLarge = declared && declaredLength > cap;
    std::size_t seen = 0;
    const bool complete = (!declared || declaredLength <= drainLimit) &&
                          read([&](const char* data, std::size_t length) {
                            seen += length;
                            if (tooLarge || body.size() + length > cap) {
                              tooLarge = true;
                              body.clear();
                              return seen <= drainLimit;
                            }
                            body.append(data, length);
                            return true;
                          });
    if (tooLarge) {
      return refuse(413, "Payload Too Large: one message is at most " + std::to_string(cap) + " bytes");
    }
    if (!complete) return refuse(400, "Bad Request: the message body could not be read");
    return true;
  }

  void post(const httplib::Request& req, const std::string& text, httplib::Response& res) {
    rpc::Error parseError;
    auto body = rpc::parseJson(text, &parseError);
    if (!body) {
      res.status = 400;
      res.set_content(rpc::serialize(rpc::errorResponse(std::nullopt, parseError)), "application/json");
      return;
    }
    const bool isInitialize = body->is_object() && body->value("method", json()) == "initialize";
    std::shared_ptr<HttpSession> session;
    if (isInitialize) {
      // A new session for every initialize, even one carrying a stale id: that is how clients
      // recover after a 404.
      session = createSession(res);
      if (!session) return;
      res.set_header("Mcp-Session-Id", session->id());
    } else {
      session = findSession(req, res);
      if (!session) return;
    }
    session->touch();

    if (body->is_object()) {
      auto classified = rpc::classify(*body);
      if (auto* invalid = std::get_if<rpc::Invalid>(&classified)) {
        res.status = 400;
        res.set_content(rpc::serialize(rpc::errorResponse(invalid->id, invalid->error)), "application/json");
        return;
      }
    } else if (!body->is_array()) {
      jsonError(res, 400, rpc::ErrorCode::InvalidRequest, "Invalid Request: the body must be a JSON-RPC message");
      return;
    }

    const auto route = Session::replyRoute(*body);
    if (!route) {
      // Notifications and responses only: nothing will be answered.
      if (body->is_array() && !protocolAllowsBatches(session->session().protocolVersion())) {
        jsonError(res, 400, rpc::ErrorCode::InvalidRequest,
                  "Invalid Request: JSON-RPC batches are only accepted when protocol version 2025-03-26 was negotiated");
        return;
      }
      session->session().receive(*body);
      res.status = 202;
      return;
    }

    auto stream = std::make_shared<Stream>();
    const bool wantsSse = accepts(req, "text/event-stream");
    stream->sse = wantsSse && (!accepts(req, "application/json") ||
                               (body->is_object() && body->value("method", json()) == "tools/call"));
    if (!session->addRoute(*route, stream)) {
      jsonError(res, 409, rpc::ErrorCode::InvalidRequest, "Conflict: a request with this id is still in flight");
      return;
    }
    session->session().receive(*body);
    if (stream->sse) return streamEvents(res, session, stream, *route);

    // JSON answer: wait for the response (sync methods have queued it already).
    std::unique_lock<std::mutex> lock(stream->mutex);
    while (!stream->final && !stream->closed && !stopping) stream->cv.wait_for(lock, std::chrono::milliseconds(250));
    if (stream->final) {
      const std::string message = std::move(stream->events.back());
      lock.unlock();
      if (isInitialize && message.find("\"error\"") != std::string::npos && json::parse(message).contains("error")) {
        removeSession(session->id());  // a failed initialize leaves no session behind
        res.headers.erase("Mcp-Session-Id");
      }
      res.status = 200;
      res.set_content(message, "application/json");
      return;
    }
    lock.unlock();
    session->dropRoute(*route, stream);
    res.status = 202;  // cancelled: the spec says no response, so there is no body to send
  }

  void streamEvents(httplib::Response& res, std::shared_ptr<HttpSession> session, std::shared_ptr<Stream> stream,
                    std::optional<rpc::RequestId> route) {
    res.status = 200;
    res.set_header("Cache-Control", "no-cache");
    res.set_header("X-Accel-Buffering", "no");
    const auto keepAlive = options.keepAliveComment;
    res.set_chunked_content_provider(
        "text/event-stream",
        [this, stream, keepAlive, lastWrite = std::chrono::steady_clock::now()](size_t, httplib::DataSink& sink) mutable {
          std::unique_lock<std::mutex> lock(stream->mutex);
          stream->cv.wait_for(lock, std::chrono::milliseconds(200),
                              [&] { return !stream->events.empty() || stream->closed || stopping; });
          std::deque<std::string> events;
          events.swap(stream->events);
          const bool end = (stream->final && events.empty()) || stream->closed || stopping;
          const bool final = stream->final;
          lock.unlock();
          for (const auto& e : events) {
            const std::string frame = "event: message\ndata: " + e + "\n\n";
            if (!sink.write(frame.data(), frame.size())) return false;  // the peer went away
            lastWrite = std::chrono::steady_clock::now();
          }
          if (end || (final && !events.empty())) {
            sink.done();
            return true;
          }
          if (std::chrono::steady_clock::now() - lastWrite > keepAlive) {
            // A comment line: keeps proxies from timing out and tells us when the peer is gone.
            static const std::string ping = ": keep-alive\n\n";
            if (!sink.write(ping.data(), ping.size())) return false;
            lastWrite = std::chrono::steady_clock::now();
          }
          return true;
        },
        [session, stream, route](bool) {
          // The connection ended (done or dropped). A dropped POST stream is not a cancellation:
          // the call runs on, its later messages just have nowhere to go.
          if (route) session->dropRoute(*route, stream);
          stream->close();
        });
  }

  void get(const httplib::Request& req, httplib::Response& res) {
    if (req.method == "HEAD") {
      res.set_header("Allow", "GET, POST, DELETE");
      res.status = 405;
      return;
    }
    if (!accepts(req, "text/event-stream")) {
      res.set_header("Allow", "POST, DELETE");
      jsonError(res, 405, rpc::ErrorCode::InvalidRequest, "GET /mcp opens an SSE stream: send Accept: text/event-stream");
      return;
    }
    auto session = findSession(req, res);
    if (!session) return;
    auto stream = std::make_shared<Stream>();
    stream->sse = true;
    if (!session->openGetStream(stream)) {
      jsonError(res, 409, rpc::ErrorCode::InvalidRequest, "Conflict: this session already has an open GET stream");
      return;
    }
    streamEvents(res, session, stream, std::nullopt);
  }

  void del(const httplib::Request& req, httplib::Response& res) {
    auto session = findSession(req, res);
    if (!session) return;
    removeSession(session->id());
    res.status = 200;
  }

  void closeAll() {
    std::map<std::string, std::shared_ptr<HttpSession>> all;
    {
      std::lock_guard<std::mutex> lock(sessionsMutex);
      all.swap(sessions);
    }
    for (auto& [id, session] : all) session->close();
  }
};

HttpTransport::HttpTransport(const Registry& registry, ServerInfo info, HttpOptions options)
    : impl_(std::make_unique<Impl>(registry, std::move(info), std::move(options))) {}

HttpTransport::~HttpTransport() {
  stop();
  impl_->closeAll();
}

bool HttpTransport::bind(std::string* error) {
  if (impl_->options.port == 0) {
    impl_->boundPort = impl_->server.bind_to_any_port(impl_->options.host);
  } else if (impl_->server.bind_to_port(impl_->options.host, impl_->options.port)) {
    impl_->boundPort = impl_->options.port;
  }
  if (impl_->boundPort <= 0) {
    if (error) *error = "cannot listen on " + impl_->options.host + ":" + std::to_string(impl_->options.port) +
                        " (address in use, or not an address of this machine)";
    return false;
  }
  widenListenBacklog(impl_->boundPort);
  return true;
}

int HttpTransport::port() const { return impl_->boundPort; }

void HttpTransport::serve() {
  impl_->server.listen_after_bind();
  impl_->closeAll();
}

void HttpTransport::stop() {
  impl_->stopping = true;
  impl_->server.stop();
}

}  // namespace kopt::mcp
