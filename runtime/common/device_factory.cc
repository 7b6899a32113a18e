#include "runtime/common/device_factory.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace stepflow {
namespace {

struct FactoryTable {
  absl::Mutex mu;
  std::map<std::string, DeviceFactoryFn> factories ABSL_GUARDED_BY(mu);
};

FactoryTable* Table() {
  static FactoryTable* table = new FactoryTable;
  return table;
}

}  // namespace

bool RegisterDeviceFactory(const std::string& device_type, DeviceFactoryFn fn) {
  FactoryTable* t = Table();
  absl::MutexLock l(&t->mu);
  t->factories[device_type] = std::move(fn);
  return true;
}

std::vector<std::string> RegisteredDeviceTypes() {
  FactoryTable* t = Table();
  absl::MutexLock l(&t->mu);
  std::vector<std::string> out;
  for (const auto& entry : t->factories) out.push_back(entry.first);
  return out;
}

absl::Status AddRegisteredDevices(const SessionOptions& options,
                                  const std::string& name_prefix,
                                  std::vector<std::unique_ptr<Device>>* out) {
  std::vector<std::pair<std::string, DeviceFactoryFn>> factories;
  {
    FactoryTable* t = Table();
    absl::MutexLock l(&t->mu);
    factories.assign(t->factories.begin(), t->factories.end());
  }
  for (const auto& [type, fn] : factories) {
    absl::Status s = fn(options, name_prefix, out);
    if (!s.ok()) {
      return absl::Status(
          s.code(), absl::StrCat("Creating ", type, " devices: ", s.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace stepflow
