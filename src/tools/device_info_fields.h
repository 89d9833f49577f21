#pragma once
// device_info's arguments and result, described once (tools/field_visitor.h): its input schema,
// argument reader, output schema and structuredContent come from here. The device layer keeps
// its plain structs (device/device_report.h); the result is its DeviceReport as it stands.
#include <optional>

#include "device/device_report.h"
#include "tools/field_visitor.h"

namespace kopt::tools {

struct DeviceInfoArgs {
  std::optional<int> device;  // every device when left out
  bool measureCeilings = false;
  bool refresh = false;
};

void describe(FieldVisitor& v, DeviceInfoArgs& a);
void describe(FieldVisitor& v, device::DeviceInfo& d);
void describe(FieldVisitor& v, device::Ceilings& c);
void describe(FieldVisitor& v, device::DeviceEntry& e);
void describe(FieldVisitor& v, device::DeviceReport& r);

}  // namespace kopt::tools
