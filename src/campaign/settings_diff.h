#pragma once
// Which settings a config edit changed: the one-hypothesis-per-round rule made countable for a
// config-only round. A setting is one line naming a value:
//   `#define NAME value`  (C, C++, CUDA headers; function-like macros are code, not settings)
//   `NAME = value`        (unindented: a Python module constant, a TOML/INI key)
//   `key: value`          (YAML, any depth) and `"key": value` (JSON)
// Which forms a file can hold follows its extension, so that `x = 0;` inside a C++ function or
// `else: return` in Python is never taken for a setting. Comment-only and whitespace-only edits
// change nothing. A file whose diff also changes other (code) lines is a code edit: its new or
// removed names are the code's own (an attack parameter, a helper constant) and are not counted,
// but a changed value of a setting that existed before always counts.
#include <optional>
#include <string>
#include <vector>

namespace kopt::campaign {

enum class SettingSyntax { Any, CFamily, Python, Yaml, Json, KeyEquals };
SettingSyntax settingSyntaxFor(const std::string& path);  // by extension; Any when unknown

struct SettingChange {
  std::string name;
  std::optional<std::string> before;  // nullopt: the setting was added
  std::optional<std::string> after;   // nullopt: the setting was removed
  std::string describe() const;       // "GEMM_TILE_M 64 -> 48", "FOO added (= 3)", "FOO removed (was 3)"
};

struct SettingsDiff {
  std::vector<SettingChange> counted;  // the settings this edit changes, in file order
  int otherLinesChanged = 0;           // code lines added or removed (comments and blanks ignored)
};

SettingsDiff diffSettings(const std::string& before, const std::string& after, SettingSyntax syntax = SettingSyntax::Any);

// How many settings changed between two versions of one file (diffSettings(...).counted.size()).
int countChangedSettings(const std::string& before, const std::string& after, SettingSyntax syntax = SettingSyntax::Any);

}  // namespace kopt::campaign
