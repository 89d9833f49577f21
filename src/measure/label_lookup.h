#pragma once
// Finding a shape's entry in another per-shape list. Tables, runs, checks and the calibration are
// almost always in the same order, so the expected position is tried first and a hash index is
// built only on the first miss: aligned lists cost O(n) string compares and no allocation, which
// matters at 100k shapes (hashing every label three times dominated the gate).
#include <cstddef>
#include <optional>
#include <string_view>
#include <unordered_map>

namespace kopt::measure {

// `labelAt(i)` returns the label of entry i of a list of `size` entries.
template <typename LabelAt>
class LabelLookup {
 public:
  LabelLookup(std::size_t size, LabelAt labelAt) : size_(size), labelAt_(labelAt) {}

  // Index of `label`, trying `hint` (shifted by the offset of the previous hit, so one list that
  // lacks a few entries of the other stays on the fast path), then the first index with it.
  std::optional<std::size_t> find(std::string_view label, std::size_t hint) {
    const std::size_t shifted = hint + shift_;  // wraps harmlessly when shift_ is "negative"
    if (shifted < size_ && labelAt_(shifted) == label) return shifted;
    if (hint < size_ && labelAt_(hint) == label) {
      shift_ = 0;
      return hint;
    }
    // A few entries further on: the other list skipped some (e.g. FAIL rows).
    for (std::size_t step = 1; step <= kWindow && shifted + step < size_; ++step)
      if (labelAt_(shifted + step) == label) {
        shift_ += step;
        return shifted + step;
      }
    auto found = indexed(label);
    if (found) shift_ = *found - hint;
    return found;
  }

 private:
  std::optional<std::size_t> indexed(std::string_view label) {
    if (!indexed_) {
      index_.reserve(size_);
      for (std::size_t i = 0; i < size_; ++i) index_.emplace(labelAt_(i), i);  // keeps the first
      indexed_ = true;
    }
    auto it = index_.find(label);
    if (it == index_.end()) return std::nullopt;
    return it->second;
  }

  static constexpr std::size_t kWindow = 8;
  std::size_t size_;
  LabelAt labelAt_;
  bool indexed_ = false;
  std::size_t shift_ = 0;  // modular offset of the last hit from its hint
  std::unordered_map<std::string_view, std::size_t> index_;
};

template <typename LabelAt>
LabelLookup<LabelAt> makeLabelLookup(std::size_t size, LabelAt labelAt) {
  return LabelLookup<LabelAt>(size, labelAt);
}

}  // namespace kopt::measure
