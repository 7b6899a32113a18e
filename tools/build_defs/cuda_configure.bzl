"""Repository rule that finds the CUDA toolkit for the build.

Looks at $CUDA_PATH, then /usr/local/cuda. When nvcc, the cudart headers
and cuBLAS are there, the repository links the toolkit's include/, lib64/
and bin/ and defines:
  :cuda_headers   the toolkit headers (host code)
  :cudart         cudart_static (+ -ldl -lrt -lpthread)
  :cublas         libcublas / libcublasLt (shared; rpath to the toolkit)
  :nvcc           the compiler, for cuda_library's genrule
and defs.bzl with CUDA_AVAILABLE = True and CUDA_PATH.

Without a toolkit the same targets exist but are empty, and
CUDA_AVAILABLE = False: BUILD files tag their GPU targets "manual" so
`bazel test //...` skips them (see tools/build_defs/cuda.bzl).
"""

def _cuda_configure_impl(ctx):
    path = ctx.os.environ.get("CUDA_PATH", "/usr/local/cuda")
    root = ctx.path(path)
    ok = (root.get_child("bin").get_child("nvcc").exists and
          root.get_child("include").get_child("cuda_runtime.h").exists and
          root.get_child("include").get_child("cublas_v2.h").exists and
          root.get_child("lib64").get_child("libcudart_static.a").exists)
    if ok:
        real = str(root.realpath)
        ctx.symlink(real + "/include", "include")
        ctx.symlink(real + "/bin", "bin")
        lib = real + "/lib64"
        ctx.file("BUILD", """
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "cuda_headers",
    hdrs = glob(["include/*.h", "include/*.hpp", "include/crt/**", "include/nv/**"]),
    includes = ["include"],
)

cc_library(
    name = "cudart",
    linkopts = ["-L{lib}", "-lcudart_static", "-ldl", "-lrt", "-lpthread"],
    deps = [":cuda_headers"],
)

cc_library(
    name = "cublas",
    linkopts = ["-L{lib}", "-Wl,-rpath,{lib}", "-lcublas", "-lcublasLt"],
    deps = [":cuda_headers", ":cudart"],
)

filegroup(
    name = "nvcc",
    srcs = ["bin/nvcc"],
)

# Everything nvcc needs at run time (its helper binaries and headers).
filegroup(
    name = "nvcc_files",
    srcs = glob(["bin/**", "include/**"]),
)
""".format(lib = lib))
        ctx.file("defs.bzl", "CUDA_AVAILABLE = True\nCUDA_PATH = \"%s\"\n" % real)
    else:
        ctx.file("BUILD", """
package(default_visibility = ["//visibility:public"])

cc_library(name = "cuda_headers")
cc_library(name = "cudart")
cc_library(name = "cublas")
filegroup(name = "nvcc")
filegroup(name = "nvcc_files")
""")
        ctx.file("defs.bzl", "CUDA_AVAILABLE = False\nCUDA_PATH = \"\"\n")

cuda_configure = repository_rule(
    implementation = _cuda_configure_impl,
    environ = ["CUDA_PATH"],
    local = True,
)
