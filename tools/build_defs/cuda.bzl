"""cuda_library: compiles .cu files with nvcc for sm_90 (SASS) + compute_90
(PTX, so newer GPUs JIT it) and wraps the objects in a cc_library.

nvcc runs in a genrule (Bazel's C++ toolchain does not know .cu): each
`foo.cu` becomes `<name>_objs/foo.pic.o` (position independent, so it links
into both static and shared outputs). Host code in the .cu files sees the
same include root as C++ code (the workspace and bazel-out/genfiles), plus
the toolkit headers.

Where no CUDA toolkit is installed (@local_cuda//:defs.bzl has
CUDA_AVAILABLE = False), the library is still declared but tagged "manual",
so `bazel build //...` / `bazel test //...` skip it; targets depending on it
must use gpu_tags() the same way.
"""

load("@local_cuda//:defs.bzl", "CUDA_AVAILABLE", "CUDA_PATH")

NVCC_FLAGS = [
    "-std=c++17",
    "-O3",
    "-gencode=arch=compute_90,code=sm_90",
    "-gencode=arch=compute_90,code=compute_90",
    "-Xcompiler=-fPIC",
    "-ccbin=/usr/bin/g++",
]

def gpu_tags(tags = []):
    """Tags for a target that needs the CUDA toolkit."""
    return tags if CUDA_AVAILABLE else tags + ["manual"]

def cuda_library(name, srcs, hdrs = [], deps = [], **kwargs):
    objs = []
    for src in srcs:
        base = src.split("/")[-1].rsplit(".", 1)[0]
        obj = "%s_objs/%s.pic.o" % (name, base)
        native.genrule(
            name = "%s_%s_nvcc" % (name, base),
            srcs = [src] + hdrs,
            outs = [obj],
            # The toolkit's own nvcc (it finds cicc, ptxas and its headers
            # relative to its real location, outside the sandbox).
            cmd = (CUDA_PATH + "/bin/nvcc " + " ".join(NVCC_FLAGS) +
                   " -I. -I$(GENDIR) -c $(location %s) -o $@" % src),
            tags = gpu_tags(["gpu"]),
        )
        objs.append(obj)
    native.cc_library(
        name = name,
        linkstatic = 1,
        srcs = objs,
        hdrs = hdrs,
        deps = deps + ["@local_cuda//:cudart", "@local_cuda//:cuda_headers"],
        tags = gpu_tags(kwargs.pop("tags", [])),
        **kwargs
    )
