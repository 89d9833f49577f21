#include "campaign/loop_policy.h"

namespace kopt::campaign {

namespace {

std::string count(int n) {
  static const char* words[] = {"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"};
  return n >= 0 && n < 10 ? words[n] : std::to_string(n);
}

}  // namespace

std::string LoopPolicy::reviewRule() const {
  return count(stagnationDirections) + " new directions in at least " + count(stagnationCategories) + " categories";
}

const LoopPolicy& loopPolicy() {
  static const LoopPolicy policy;
  return policy;
}

}  // namespace kopt::campaign
