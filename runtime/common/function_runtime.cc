#include "runtime/common/function_runtime.h"

#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "runtime/common/function_call_frame.h"
#include "runtime/framework/node_def_util.h"
#include "runtime/framework/status_macros.h"
#include "runtime/framework/versions.h"
#include "runtime/function/function_library.h"
#include "runtime/function/instantiate.h"
#include "runtime/function/lower_functional_ops.h"
#include "runtime/graph/graph_constructor.h"

namespace stepflow {
namespace {

// "<function>" followed by the attrs in name order, each deterministically
// serialized: equal (function, attrs) pairs give equal keys.
std::string InstantiationKey(const std::string& function,
                             const FunctionLibraryRuntime::AttrMap& attrs) {
  std::map<std::string, const AttrValue*> sorted;
  for (const auto& [name, value] : attrs) sorted[name] = &value;
  std::string key = function;
  for (const auto& [name, value] : sorted) {
    std::string bytes;
    {
      google::protobuf::io::StringOutputStream stream(&bytes);
      google::protobuf::io::CodedOutputStream out(&stream);
      out.SetSerializationDeterministic(true);
      value->SerializeToCodedStream(&out);
    }
    absl::StrAppend(&key, "|", name.size(), ":", name, "=", bytes.size(), ":",
                    bytes);
  }
  return key;
}

// The body as a GraphDef: its nodes, one _Retval per result, the library.
GraphDef BodyGraphDef(const FunctionBody& body,
                      const FunctionDefLibrary& library) {
  GraphDef def;
  def.mutable_versions()->set_producer(kGraphDefVersion);
  *def.mutable_library() = library;
  std::set<std::string> names;
  for (const NodeDef& n : body.nodes) {
    names.insert(n.name());
    *def.add_node() = n;
  }
  for (size_t i = 0; i < body.ret_tensors.size(); ++i) {
    std::string name = absl::StrCat("retval_", i);
    while (names.count(name) > 0) name += "_";
    names.insert(name);
    NodeDef* r = def.add_node();
    r->set_name(name);
    r->set_op("_Retval");
    r->add_input(body.ret_tensors[i]);
    AddNodeAttr("T", body.ret_types[i], r);
    AddNodeAttr("index", static_cast<int64_t>(i), r);
  }
  return def;
}

}  // namespace

LocalFunctionRuntime::LocalFunctionRuntime(Device* device,
                                           const OpRegistry* ops)
    : device_(device), ops_(ops) {}

LocalFunctionRuntime::~LocalFunctionRuntime() = default;

void LocalFunctionRuntime::AddFunctions(const FunctionDefLibrary& library) {
  absl::MutexLock l(&mu_);
  std::set<std::string> present;
  for (const FunctionDef& f : library_.function()) {
    present.insert(f.signature().name());
  }
  for (const FunctionDef& f : library.function()) {
    if (present.insert(f.signature().name()).second) {
      *library_.add_function() = f;
    }
  }
}

absl::Status LocalFunctionRuntime::Instantiate(const std::string& function,
                                               const AttrMap& attrs,
                                               Handle* handle) {
  const std::string key = InstantiationKey(function, attrs);
  absl::MutexLock l(&mu_);
  auto it = handles_.find(key);
  if (it != handles_.end()) {
    *handle = it->second;
    return absl::OkStatus();
  }
  // Building creates the body's kernels; call kernels among them
  // instantiate their own functions only when they first run, so this
  // does not re-enter.
  auto item = std::make_unique<Item>();
  SF_RETURN_IF_ERROR(Build(function, attrs, item.get()));
  *handle = static_cast<Handle>(items_.size());
  items_.push_back(std::move(item));
  handles_.emplace(key, *handle);
  return absl::OkStatus();
}

absl::Status LocalFunctionRuntime::Build(const std::string& function,
                                         const AttrMap& attrs, Item* item) {
  FunctionLibrary library(library_, ops_);
  SF_RETURN_IF_ERROR(library.CheckCallable(function));
  FunctionBody body;
  SF_RETURN_IF_ERROR(InstantiateFunction(library, function, attrs, &body));
  GraphDef lowered;
  SF_RETURN_IF_ERROR(
      LowerFunctionalOps(BodyGraphDef(body, library_), ops_, &lowered));
  auto graph = std::make_unique<Graph>();
  GraphConstructorOptions opts;
  opts.allow_internal_ops = true;
  opts.add_default_attributes = true;
  absl::Status s = ConvertGraphDefToGraph(opts, lowered, graph.get());
  if (!s.ok()) {
    return absl::Status(
        s.code(), absl::StrCat("Function '", function, "': ", s.message()));
  }
  for (Node* n : graph->op_nodes()) {
    n->set_assigned_device_name(device_->name());
  }
  LocalExecutorParams params;
  params.device = device_;
  params.env = device_->env();
  params.function_library = this;
  SF_RETURN_IF_ERROR(
      NewLocalExecutor(params, std::move(graph), &item->executor));
  item->arg_types = body.arg_types;
  item->ret_types = body.ret_types;
  return absl::OkStatus();
}

const LocalFunctionRuntime::Item* LocalFunctionRuntime::Find(
    Handle handle) const {
  absl::MutexLock l(&mu_);
  if (handle < 0 || handle >= static_cast<Handle>(items_.size())) {
    return nullptr;
  }
  return items_[handle].get();
}

DataTypeVector LocalFunctionRuntime::ArgTypes(Handle handle) const {
  const Item* item = Find(handle);
  return item == nullptr ? DataTypeVector() : item->arg_types;
}

DataTypeVector LocalFunctionRuntime::RetTypes(Handle handle) const {
  const Item* item = Find(handle);
  return item == nullptr ? DataTypeVector() : item->ret_types;
}

size_t LocalFunctionRuntime::NumInstantiated() const {
  absl::MutexLock l(&mu_);
  return items_.size();
}

void LocalFunctionRuntime::Run(const Options& options, Handle handle,
                               std::vector<Tensor> args,
                               std::vector<Tensor>* rets, DoneCallback done) {
  Scheduler* scheduler = device_->env()->scheduler;
  auto fail = [scheduler, &done](absl::Status s) {
    scheduler->Schedule(
        [done = std::move(done), s = std::move(s)] { done(s); });
  };
  const Item* item = Find(handle);
  if (item == nullptr) {
    fail(absl::InvalidArgumentError(
        absl::StrCat("No instantiated function has handle ", handle)));
    return;
  }
  auto frame =
      std::make_shared<FunctionCallFrame>(item->arg_types, item->ret_types);
  absl::Status s = frame->SetArgs(std::move(args));
  if (!s.ok()) {
    fail(std::move(s));
    return;
  }
  Executor::Args exec_args;
  exec_args.step_id = options.step_id;
  exec_args.rendezvous = options.rendezvous;
  exec_args.call_frame = frame.get();
  exec_args.cancellation_manager = options.cancellation_manager;
  exec_args.stats_collector = options.stats_collector;
  exec_args.step_container = options.step_container;
  if (options.stats_collector != nullptr) {
    exec_args.stats_name_prefix = absl::StrCat(options.caller, "/");
  }
  item->executor->RunAsync(
      exec_args, [frame, rets, done = std::move(done)](const absl::Status& st) {
        absl::Status result = st;
        if (result.ok()) result = frame->ConsumeRetvals(rets);
        done(result);
      });
}

FunctionRuntimeSet::FunctionRuntimeSet(const OpRegistry* ops) : ops_(ops) {}

LocalFunctionRuntime* FunctionRuntimeSet::ForDevice(
    Device* device, const FunctionDefLibrary& library) {
  LocalFunctionRuntime* runtime = nullptr;
  {
    absl::MutexLock l(&mu_);
    std::unique_ptr<LocalFunctionRuntime>& slot = runtimes_[device->name()];
    if (slot == nullptr) {
      slot = std::make_unique<LocalFunctionRuntime>(device, ops_);
    }
    runtime = slot.get();
  }
  runtime->AddFunctions(library);
  return runtime;
}

}  // namespace stepflow
