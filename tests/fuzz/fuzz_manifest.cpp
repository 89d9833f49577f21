// libFuzzer target: the campaign manifest parser (define_target, kopt doctor --manifest) on
// arbitrary YAML. Every input ends in a manifest or a refusal that names a field; no input may
// crash it, overflow a number or recurse without bound.
#include <cstddef>
#include <cstdint>
#include <string>

#include "campaign/manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)kopt::campaign::parseManifest(text);
  return 0;
}
