#include "measure/csv_line.h"

#include <cstring>

namespace kopt::measure {

bool splitCsvLine(std::string_view line, std::vector<std::string_view>& cells, std::string& scratch, std::string* error) {
  cells.clear();
  if (std::memchr(line.data(), '"', line.size()) == nullptr) {
    // Cells are short (numbers, labels): a plain byte loop beats a memchr call per cell.
    // Written by index into a vector kept at its largest size, so no per-cell capacity checks.
    const char* begin = line.data();
    const char* end = begin + line.size();
    const char* cell = begin;
    std::size_t n = 0;
    if (cells.capacity() < 16) cells.reserve(16);
    cells.resize(cells.capacity());
    for (const char* p = begin; p != end; ++p) {
      if (*p == ',') {
        if (n + 1 >= cells.size()) cells.resize(cells.size() * 2);
        cells[n++] = std::string_view(cell, static_cast<std::size_t>(p - cell));
        cell = p + 1;
      }
    }
    cells[n++] = std::string_view(cell, static_cast<std::size_t>(end - cell));
    cells.resize(n);
    return true;
  }
  // Slow path: unescape quoted cells into scratch. Reserve so appends never reallocate and the
  // views stay valid.
  scratch.clear();
  scratch.reserve(line.size());
  std::size_t i = 0;
  while (true) {
    if (i < line.size() && line[i] == '"') {
      std::size_t begin = scratch.size();
      ++i;
      bool closed = false;
      while (i < line.size()) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            scratch.push_back('"');
            i += 2;
            continue;
          }
          closed = true;
          ++i;
          break;
        }
        scratch.push_back(line[i++]);
      }
      if (!closed) {
        if (error) *error = "cell " + std::to_string(cells.size() + 1) + " opens a quote that is never closed";
        return false;
      }
      cells.push_back(std::string_view(scratch).substr(begin, scratch.size() - begin));
      if (i == line.size()) return true;
      if (line[i] != ',') {
        if (error) *error = "cell " + std::to_string(cells.size()) + " has text after its closing quote";
        return false;
      }
      ++i;
      if (i == line.size()) {
        cells.push_back(std::string_view());
        return true;
      }
    } else {
      std::size_t comma = line.find(',', i);
      std::string_view cell = comma == std::string_view::npos ? line.substr(i) : line.substr(i, comma - i);
      if (cell.find('"') != std::string_view::npos) {
        if (error) *error = "cell " + std::to_string(cells.size() + 1) + " has a '\"' inside an unquoted cell";
        return false;
      }
      cells.push_back(cell);
      if (comma == std::string_view::npos) return true;
      i = comma + 1;
      if (i == line.size()) {
        cells.push_back(std::string_view());
        return true;
      }
    }
  }
}

}  // namespace kopt::measure
