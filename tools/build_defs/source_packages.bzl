"""The packages whose C++ sources the tree-wide checks read.

Each listed package exports a `sources` filegroup (its *.h and *.cc, and
*.cu where it has them) visible to the checks that use it.
"""

# The runtime and the simulator: scanned by the seam test and the format
# test.
RUNTIME_AND_SIM_PACKAGES = [
    "//runtime/bin",
    "//runtime/c",
    "//runtime/client",
    "//runtime/common",
    "//runtime/distributed",
    "//runtime/distributed/rpc",
    "//runtime/distributed/testing",
    "//runtime/env",
    "//runtime/env/real",
    "//runtime/framework",
    "//runtime/function",
    "//runtime/gpu",
    "//runtime/graph",
    "//runtime/kernels",
    "//runtime/ops",
    "//runtime/saved_model",
    "//sim",
    "//sim/check",
    "//sim/env",
    "//sim/trace",
    "//sim/workloads",
]

# Test, benchmark and fuzz code: formatted, not seam-checked.
SUPPORT_PACKAGES = [
    "//benchmarks",
    "//fuzz",
    "//testing",
    "//testing/tf_ops",
    "//testing/tf_oracle",
    "//testing/tf_shapes",
]
