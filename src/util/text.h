#pragma once
// Small string helpers shared by the layers (UTF-8 safety for text that comes from commands and
// agents, trimming, splitting, case). Kept here so no layer grows its own copy.
#include <string>
#include <string_view>
#include <vector>

namespace kopt::util {

bool isValidUtf8(std::string_view s);
// Invalid UTF-8 sequences replaced by U+FFFD, so JSON encoding never throws on tool output.
std::string sanitizeUtf8(std::string_view s);
// At most maxBytes bytes, cut on a code-point boundary (of sanitized text).
std::string truncateUtf8(std::string_view s, std::size_t maxBytes);

std::string trim(std::string_view s);
std::string toLower(std::string_view s);
std::string toUpper(std::string_view s);
bool startsWith(std::string_view s, std::string_view prefix);
bool endsWith(std::string_view s, std::string_view suffix);
bool containsIgnoreCase(std::string_view haystack, std::string_view needle);
std::vector<std::string> split(std::string_view s, char sep);  // keeps empty fields
std::string join(const std::vector<std::string>& parts, std::string_view sep);
std::string replaceAll(std::string s, std::string_view from, std::string_view to);
// Lines without their "\n" (and a trailing "\r" removed); a final line without newline included.
std::vector<std::string> splitLines(std::string_view s);

// Formatting of a signed percentage as the records use it: "+6.000%", "-0.512%" (decimals fixed).
std::string formatSignedPercent(double pct, int decimals = 3);

}  // namespace kopt::util
