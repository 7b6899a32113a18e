#include "runtime/gpu/gpu_kernel_defs.h"

namespace stepflow {

bool GpuTypeInDeviceMemory(DataType dtype) {
  return dtype == DT_FLOAT || dtype == DT_DOUBLE;
}

const std::vector<DataType>& GpuMathTypes() {
  static const std::vector<DataType>* types =
      new std::vector<DataType>{DT_FLOAT, DT_DOUBLE};
  return *types;
}

namespace {

KernelDef Math(const char* op, const char* type_attr = "T") {
  return KernelDefBuilder(op)
      .Device(DEVICE_GPU)
      .TypeConstraint(type_attr, GpuMathTypes())
      .Build();
}

std::vector<KernelDef>* BuildDefs() {
  auto* defs = new std::vector<KernelDef>;
  for (const char* op :
       {"MatMul", "BiasAdd", "Relu", "ReluGrad", "Add", "AddV2", "Sub", "Mul",
        "RealDiv", "Neg", "Square", "Softmax", "SoftmaxCrossEntropyWithLogits",
        "ApplyGradientDescent", "Identity"}) {
    defs->push_back(Math(op));
  }
  for (const char* op : {"Sum", "Mean"}) {
    defs->push_back(KernelDefBuilder(op)
                        .Device(DEVICE_GPU)
                        .TypeConstraint("T", GpuMathTypes())
                        .HostMemory("reduction_indices")
                        .Build());
  }
  for (const char* op : {"Const", "Variable", "VariableV2"}) {
    defs->push_back(Math(op, "dtype"));
  }
  defs->push_back(Math("Assign"));
  defs->push_back(KernelDefBuilder("Cast")
                      .Device(DEVICE_GPU)
                      .TypeConstraint("SrcT", {DT_FLOAT, DT_DOUBLE, DT_INT32,
                                               DT_INT64, DT_BOOL})
                      .TypeConstraint("DstT", GpuMathTypes())
                      .Build());
  // Transfers: any type; the value's memory type follows its dtype.
  for (const char* op : {"_Send", "_Recv"}) {
    defs->push_back(KernelDefBuilder(op).Device(DEVICE_GPU).Build());
  }
  return defs;
}

}  // namespace

const std::vector<KernelDef>& GpuKernelDefs() {
  static const std::vector<KernelDef>* defs = BuildDefs();
  return *defs;
}

}  // namespace stepflow
