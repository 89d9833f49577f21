// libFuzzer target: the frozen-schema CSV parser (parse_bench_csv, every run kopt reads) under every
// schema kind, on arbitrary bytes. It must return a table or an error, never crash or hang.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "measure/bench_table.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)kopt::measure::parseBenchCsv(text);
  for (auto kind : {kopt::measure::SchemaKind::Gemm, kopt::measure::SchemaKind::MemoryBound}) {
    (void)kopt::measure::parseBenchCsv(text, kind);
  }
  return 0;
}
