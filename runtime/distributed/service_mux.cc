#include "runtime/distributed/service_mux.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace stepflow {

void ServiceMux::Handle(absl::string_view method,
                        const google::protobuf::Message& request,
                        google::protobuf::Message* response,
                        DoneCallback done) {
  const absl::string_view service = method.substr(0, method.find('/'));
  auto it = handlers_.find(service);
  if (it == handlers_.end()) {
    done(absl::UnimplementedError(
        absl::StrCat("no service '", service, "' here for method ", method)));
    return;
  }
  it->second->Handle(method, request, response, std::move(done));
}

}  // namespace stepflow
