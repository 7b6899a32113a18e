"""Checks that stepflow's master/worker messages are TensorFlow's on the wire.

    python wire_compat_check.py <stepflow descriptor set>

Run with TensorFlow's interpreter. TensorFlow's descriptors come from the
installed TensorFlow itself: the descriptor set it ships for its core
protos (config, cluster, tensorflow_server, ...) and, for master.proto and
worker.proto (whose Python modules it does not ship), the serialized file
descriptors embedded in its C++ library. For every stepflow message reachable
from the master and worker RPC messages whose name TensorFlow also has:

  * each stepflow field numbered below 1000 is TensorFlow's field of that
    number, with the same name and the same wire encoding (an int32 where
    TensorFlow has an enum is the same varint; a nested message must be
    TensorFlow's message of the same name);
  * each stepflow field numbered 1000 or more (stepflow's own) is a number
    TensorFlow does not use;
  * each TensorFlow field stepflow leaves out is in OMITTED below, with the
    reason (protobuf keeps unknown fields, so they still pass through).

Prints one line per message checked and exits 1 on any mismatch.
"""

import glob
import os
import re
import sys

from google.protobuf import descriptor_pb2

# TensorFlow fields stepflow's messages do not declare, and why.
OMITTED = {
    # stepflow has no cost model, collectives, debugger, RPC options or
    # pluggable devices; these stay unknown fields.
    "ConfigProto.pluggable_device_options": "no pluggable devices",
    "ConfigProto.rpc_options": "gRPC settings are the server's",
    "ConfigProto.cluster_def": "no ClusterSpec propagation",
    "ConfigProto.share_cluster_devices_in_session": "always shared",
    "ConfigProto.experimental": "no experimental options",
    "GPUOptions.deferred_deletion_bytes": "no GPU allocator tuning",
    "GPUOptions.polling_active_delay_usecs": "no GPU allocator tuning",
    "GPUOptions.polling_inactive_delay_msecs": "no GPU allocator tuning",
    "GPUOptions.force_gpu_compatible": "no GPU allocator tuning",
    "GPUOptions.experimental": "no GPU allocator tuning",
    "GraphOptions.enable_recv_scheduling": "no graph optimizer options",
    "GraphOptions.optimizer_options": "no graph optimizer options",
    "GraphOptions.build_cost_model": "no cost model",
    "GraphOptions.build_cost_model_after": "no cost model",
    "GraphOptions.infer_shapes": "no graph optimizer options",
    "GraphOptions.enable_bfloat16_sendrecv": "no graph optimizer options",
    "GraphOptions.timeline_step": "no graph optimizer options",
    "RunOptions.debug_options": "no debugger",
    "RunOptions.experimental": "no collectives or run-handler pools",
    "RunMetadata.cost_graph": "no cost model",
    "RunMetadata.function_graphs": "functions are not reported apart",
    "RunMetadata.session_metadata": "no session metadata",
    "RegisterGraphRequest.debug_options": "no debugger",
    "RunGraphResponse.cost_graph": "no cost model",
    "RecvTensorRequest.transport_options": "gRPC only",
    "RecvTensorResponse.transport_options": "gRPC only",
    "ServerDef.cluster_device_filters": "no device filters per task",
    "NodeExecStats.referenced_tensor": "not recorded",
    "NodeExecStats.memory_stats": "not recorded",
    "AllocatorMemoryUsed.allocation_records": "not recorded",
    "DeviceAttributes.xla_global_id": "no XLA",
    "DeviceLocality.links": "no interconnect description",
}

# Grappler's passes and settings that stepflow's rewrites have no
# counterpart for: it reads remapping and disable_meta_optimizer only.
for _field in (
    "cpu_layout_conversion", "layout_optimizer", "constant_folding",
    "shape_optimization", "common_subgraph_elimination",
    "arithmetic_optimization", "dependency_optimization", "loop_optimization",
    "function_optimization", "debug_stripper", "disable_model_pruning",
    "scoped_allocator_optimization", "pin_to_host_optimization",
    "implementation_selector", "auto_mixed_precision",
    "auto_mixed_precision_mkl", "auto_mixed_precision_onednn_bfloat16",
    "auto_mixed_precision_cpu", "disable_tfg_optimizer",
    "use_plugin_optimizers", "experimental_conditional_code_motion",
    "meta_optimizer_iterations", "min_graph_nodes",
    "experimental_disable_compressed_tensor_optimization",
    "experimental_disable_folding_quantization_emulation",
    "memory_optimization", "memory_optimizer_target_node_name_scope",
    "meta_optimizer_timeout_ms", "auto_parallel", "fail_on_optimizer_errors",
    "scoped_allocator_opts", "optimizers", "custom_optimizers",
    "inter_optimizer_verifier_config", "post_optimization_verifier_config"):
  OMITTED["RewriterConfig." + _field] = "no such rewrite"

VARINT = {"int32", "int64", "uint32", "uint64", "bool", "enum", "sint32",
          "sint64"}
TYPE_NAMES = {v: k[5:].lower()
              for k, v in descriptor_pb2.FieldDescriptorProto.Type.items()}


def wire_kind(field):
  t = TYPE_NAMES[field.type]
  if t in ("sint32", "sint64"):
    return t  # zigzag: not interchangeable with plain varints.
  if t in VARINT:
    return "varint"
  if t in ("fixed64", "sfixed64", "double"):
    return "fixed64:" + t
  if t in ("fixed32", "sfixed32", "float"):
    return "fixed32:" + t
  if t in ("message", "group"):
    return "message:" + field.type_name.split(".")[-1]
  return "bytes"  # string, bytes


def messages(fds):
  """Simple message name (nested: Outer.Inner) -> DescriptorProto."""
  out = {}

  def walk(prefix, m):
    name = prefix + m.name
    out[name] = m
    for n in m.nested_type:
      walk(name + ".", n)

  for f in fds.file:
    for m in f.message_type:
      walk("", m)
  return out


def tensorflow_descriptors():
  import tensorflow as tf  # noqa: F401  (locates the installation)
  root = os.path.dirname(tf.__file__)
  fds = descriptor_pb2.FileDescriptorSet()
  for path in glob.glob(os.path.join(
      root, "include/tensorflow/core/protobuf/*descriptor-set.proto.bin")):
    part = descriptor_pb2.FileDescriptorSet()
    part.ParseFromString(open(path, "rb").read())
    fds.file.extend(part.file)
  # The framework protos the messages embed, from the Python modules.
  from tensorflow.core.framework import allocation_description_pb2
  from tensorflow.core.framework import device_attributes_pb2
  from tensorflow.core.framework import step_stats_pb2
  from tensorflow.core.framework import tensor_description_pb2
  from tensorflow.core.protobuf import named_tensor_pb2
  for mod in (allocation_description_pb2, device_attributes_pb2,
              step_stats_pb2, tensor_description_pb2, named_tensor_pb2):
    fd = descriptor_pb2.FileDescriptorProto()
    mod.DESCRIPTOR.CopyToProto(fd)
    fds.file.append(fd)
  # master.proto and worker.proto: embedded in the C++ library as
  # serialized FileDescriptorProtos.
  libs = glob.glob(os.path.join(root, "libtensorflow_cc.so*"))
  data = open(libs[0], "rb").read()
  for name in ("tensorflow/core/protobuf/master.proto",
               "tensorflow/core/protobuf/worker.proto"):
    fd = embedded_file_descriptor(data, name)
    if fd is None:
      sys.exit("cannot find %s in %s" % (name, libs[0]))
    fds.file.append(fd)
  return fds


def embedded_file_descriptor(data, name):
  nb = name.encode()
  for m in re.finditer(re.escape(b"\x0a" + bytes([len(nb)]) + nb), data):
    start = pos = m.start()
    end = pos
    # Walk top-level length-delimited fields until the bytes stop looking
    # like a FileDescriptorProto.
    try:
      while True:
        tag, p = varint(data, pos)
        if tag & 7 != 2 or not 1 <= tag >> 3 <= 14:
          break
        length, p = varint(data, p)
        pos = p + length
        end = pos
    except IndexError:
      pass
    fd = descriptor_pb2.FileDescriptorProto()
    try:
      fd.ParseFromString(data[start:end])
    except Exception:  # pylint: disable=broad-except
      continue
    if fd.name == name and fd.message_type:
      return fd
  return None


def varint(data, pos):
  result = shift = 0
  while True:
    b = data[pos]
    pos += 1
    result |= (b & 0x7F) << shift
    shift += 7
    if b < 0x80:
      return result, pos


ROOTS = [
    "CreateSessionRequest", "CreateSessionResponse", "ExtendSessionRequest",
    "ExtendSessionResponse", "PartialRunSetupRequest",
    "PartialRunSetupResponse", "RunStepRequest", "RunStepResponse",
    "CloseSessionRequest", "CloseSessionResponse", "ListDevicesRequest",
    "ListDevicesResponse", "ResetRequest", "ResetResponse",
    "MakeCallableRequest", "MakeCallableResponse", "RunCallableRequest",
    "RunCallableResponse", "ReleaseCallableRequest",
    "ReleaseCallableResponse", "GetStatusRequest", "GetStatusResponse",
    "CreateWorkerSessionRequest", "CreateWorkerSessionResponse",
    "DeleteWorkerSessionRequest", "DeleteWorkerSessionResponse",
    "RegisterGraphRequest", "RegisterGraphResponse", "DeregisterGraphRequest",
    "DeregisterGraphResponse", "RunGraphRequest", "RunGraphResponse",
    "CleanupGraphRequest", "CleanupGraphResponse", "CleanupAllRequest",
    "CleanupAllResponse", "RecvTensorRequest", "RecvTensorResponse",
    "LoggingRequest", "LoggingResponse", "TracingRequest", "TracingResponse",
]
# Messages whose field numbers predate this check and are shared with
# TensorFlow's framework protos (GraphDef, TensorProto, ...): checked by
# their own tests (ops and GraphDef goldens), not walked here.
NOT_WALKED = {"GraphDef", "TensorProto", "TensorShapeProto",
              "ResourceHandleProto", "NodeDef", "FunctionDefLibrary",
              "VersionDef", "AttrValue"}


def main():
  ours = messages(_read_set(sys.argv[1]))
  theirs = messages(tensorflow_descriptors())
  failures = []
  seen = set()
  todo = list(ROOTS)
  while todo:
    name = todo.pop()
    if name in seen or name in NOT_WALKED:
      continue
    seen.add(name)
    if name not in ours:
      failures.append("%s: stepflow has no such message" % name)
      continue
    mine = ours[name]
    if mine.options.map_entry:
      continue
    tf_msg = theirs.get(name)
    for f in mine.field:
      if f.type_name and TYPE_NAMES[f.type] == "message":
        todo.append(_short(f.type_name, ours))
    if tf_msg is None:
      if name in ROOTS:
        failures.append("%s: TensorFlow has no such message" % name)
      else:
        print("%-32s stepflow only" % name)
      continue
    tf_fields = {f.number: f for f in tf_msg.field}
    problems = []
    for f in mine.field:
      if f.number >= 1000:
        if f.number in tf_fields:
          problems.append("%s = %d is TensorFlow's %s" %
                          (f.name, f.number, tf_fields[f.number].name))
        continue
      t = tf_fields.get(f.number)
      if t is None:
        problems.append("%s = %d: TensorFlow has no field %d" %
                        (f.name, f.number, f.number))
        continue
      if t.name != f.name:
        problems.append("%d is %s here, %s in TensorFlow" %
                        (f.number, f.name, t.name))
      if wire_kind(f) != wire_kind(t) or (f.label == 3) != (t.label == 3):
        problems.append("%s = %d: %s%s here, %s%s in TensorFlow" % (
            f.name, f.number, "repeated " if f.label == 3 else "",
            wire_kind(f), "repeated " if t.label == 3 else "", wire_kind(t)))
    numbers = {f.number for f in mine.field}
    omitted = []
    for t in tf_msg.field:
      if t.number not in numbers:
        key = "%s.%s" % (name, t.name)
        if key in OMITTED:
          omitted.append(t.name)
        else:
          problems.append("TensorFlow's %s = %d is missing" % (t.name,
                                                              t.number))
    own = [f.name for f in mine.field if f.number >= 1000]
    status = "FAIL" if problems else "ok"
    print("%-32s %s: %d fields as TensorFlow's%s%s" % (
        name, status, len(mine.field) - len(own),
        "; stepflow's own: " + ", ".join(own) if own else "",
        "; left out: " + ", ".join(omitted) if omitted else ""))
    failures += ["%s: %s" % (name, p) for p in problems]
  for f in failures:
    print("FAIL:", f)
  print("%d messages checked, %d failures" % (len(seen), len(failures)))
  sys.exit(1 if failures else 0)


def _short(type_name, ours):
  # ".stepflow.GPUOptions.Experimental" -> "GPUOptions.Experimental"
  parts = type_name.lstrip(".").split(".")
  for i in range(len(parts)):
    candidate = ".".join(parts[i:])
    if candidate in ours:
      return candidate
  return parts[-1]


def _read_set(path):
  fds = descriptor_pb2.FileDescriptorSet()
  fds.ParseFromString(open(path, "rb").read())
  return fds


if __name__ == "__main__":
  main()
