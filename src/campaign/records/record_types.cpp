#include "campaign/records/record_types.h"

namespace kopt::campaign::records {

const char* toString(EffectDirection d) {
  return d == EffectDirection::Increase ? "increase" : "decrease";
}

}  // namespace kopt::campaign::records
