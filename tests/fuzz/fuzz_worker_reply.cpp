// libFuzzer target: a bench worker's reply line (harness/WORKER-PROTOCOL.md). The candidate's code
// runs in its worker's process and can write anything to the reply channel, so kopt must read any
// bytes there as a reply or a broken one: never crash, throw past the parser, or recurse per
// byte (200,000 nested arrays were a SIGSEGV). Every parser of an envelope's body runs on it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "campaign/bench_worker.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string line(reinterpret_cast<const char*>(data), size);
  using namespace kopt::campaign;
  auto envelope = parseReplyEnvelope(line, 1);
  if (const auto* reply = std::get_if<nlohmann::json>(&envelope)) {
    (void)parseHello(*reply);
    (void)parsePrepared(*reply, "s");
    (void)parseBatch(*reply, "s", 3);
    (void)parseRow(*reply, "s");
    (void)parseWarmed(*reply, "s");
  }
  return 0;
}
