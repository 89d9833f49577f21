#pragma once
// One palette for both charts, so "accepted" and "rolled back" look the same everywhere.
#include <string>

#include "campaign/report/campaign_history.h"

namespace kopt::campaign::report::style {

inline constexpr const char* kInk = "#222222";        // titles, axis text
inline constexpr const char* kMuted = "#666666";      // secondary text
inline constexpr const char* kGrid = "#e3e3e3";
inline constexpr const char* kAxis = "#888888";
inline constexpr const char* kBackground = "#ffffff";
inline constexpr const char* kBestLine = "#3b5b92";
inline constexpr const char* kBand = "#9ecae1";
inline constexpr const char* kMissing = "#d4d4d4";   // FAIL / not measured

inline const char* statusColour(RoundStatus status) {
  switch (status) {
    case RoundStatus::Baseline: return "#444444";
    case RoundStatus::Accepted: return "#1b9e4b";
    case RoundStatus::AcceptedWithNote: return "#e08a00";
    case RoundStatus::RolledBack: return "#d7301f";
  }
  return "#444444";
}

inline const char* statusLabel(RoundStatus status) {
  switch (status) {
    case RoundStatus::Baseline: return "Baseline";
    case RoundStatus::Accepted: return "Accepted";
    case RoundStatus::AcceptedWithNote: return "Accepted with note";
    case RoundStatus::RolledBack: return "Rolled back";
  }
  return "";
}

// Width of a string in the sans font stack, roughly: good enough to lay out labels without
// measuring glyphs (counts UTF-8 code points, not bytes).
inline double textWidth(const std::string& text, double fontSize) {
  int codePoints = 0;
  for (unsigned char c : text)
    if ((c & 0xC0) != 0x80) ++codePoints;
  return codePoints * fontSize * 0.58;
}

// Shortens to at most `maxChars` code points with an ellipsis; keeps UTF-8 sequences whole.
inline std::string ellipsize(const std::string& text, int maxChars) {
  int count = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (count == maxChars - 1) {
      // Does the rest fit in one more code point?
      size_t rest = 0;
      for (size_t j = i; j < text.size(); ++j)
        if ((static_cast<unsigned char>(text[j]) & 0xC0) != 0x80) ++rest;
      if (rest <= 1) return text;
      return text.substr(0, i) + "\xE2\x80\xA6";
    }
    ++count;
  }
  return text;
}

}  // namespace kopt::campaign::report::style
