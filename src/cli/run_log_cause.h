#pragma once
// Why a bench run failed, in the bench's own words, for kopt init's refusal. kopt's harness
// states every cause on a line of its own, prefixed with its name ("quick_test_bench: shape r:
// RuntimeError: ...", "quick_test_bench: cannot import ..."), while a shape that fails still ends
// in a FAIL row and exit 0; the lines around it (a compiler's warnings, the timing lines) bury
// that line in the log's tail. Pure text: init_command.cpp reads the log.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kopt::cli {

// The log's lines that start with "<program>: " (the program's own messages), those that name
// "shape <shape>" first, its timing lines ("<program>: time: ...") left out; where the program
// wrote none (another bench), the log's last non-empty lines. At most `maxLines`, each cut to
// 400 bytes.
std::vector<std::string> runLogCause(std::string_view log, std::string_view program, std::string_view shape,
                                     std::size_t maxLines = 12);

}  // namespace kopt::cli
