// libFuzzer target: the one-hypothesis settings count (settings_diff), which reads the kernel files
// a candidate edited, under every syntax. The bytes are the file before, a NUL, the file after.
// It must count, never crash, recurse per character (std::regex did: a 100 KB line was a SIGSEGV)
// or hang.
#include <cstddef>
#include <cstdint>
#include <string>

#include "campaign/settings_diff.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto nul = text.find('\0');
  const std::string before = nul == std::string::npos ? std::string() : text.substr(0, nul);
  const std::string after = nul == std::string::npos ? text : text.substr(nul + 1);
  using kopt::campaign::SettingSyntax;
  for (auto syntax : {SettingSyntax::Any, SettingSyntax::CFamily, SettingSyntax::Python, SettingSyntax::Yaml,
                      SettingSyntax::Json, SettingSyntax::KeyEquals}) {
    (void)kopt::campaign::diffSettings(before, after, syntax);
  }
  return 0;
}
