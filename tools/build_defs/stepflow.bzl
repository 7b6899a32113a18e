"""Shared BUILD conventions for stepflow's C++ targets.

Libraries spell out their dependencies in full; these helpers only factor
what every test of a kind repeats (the gtest main, the usual size), so a
test's own `deps` still list everything its sources include apart from
gtest itself.
"""

# The test main every gtest-based cc_test links (it also brings gtest and
# gmock headers).
GTEST_MAIN = "//third_party/system:gtest_main"

def sf_cc_test(name, srcs = None, deps = [], size = "small", **kwargs):
    """A gtest cc_test linked with gtest_main.

    Args:
      name: the test's name.
      srcs: its sources; defaults to [name + ".cc"].
      deps: what the sources include (gtest_main is added).
      size: the test size; "small" unless given.
      **kwargs: passed to cc_test (env, data, tags, timeout, ...).
    """
    native.cc_test(
        name = name,
        srcs = srcs if srcs != None else [name + ".cc"],
        size = size,
        deps = deps + [GTEST_MAIN],
        **kwargs
    )

# The compiler flags of each wide x86 vector ISA a kernel may carry a copy
# of its hot loop for (runtime/kernels/cpu_isa.h). FMA contraction is on so
# that `a * b + c` in the loops compiles to one fused instruction.
ISA_COPTS = {
    "avx2": ["-mavx2", "-mfma", "-ffp-contract=fast"],
    "avx512": ["-mavx512f", "-mfma", "-ffp-contract=fast"],
}

def sf_isa_variants(name, srcs = [], deps = []):
    """Per-ISA copies of a hot loop, one private library per wide ISA.

    For each ISA in ISA_COPTS, declares `<name>_<isa>`, built from
    `<name>_<isa>.cc` plus `srcs` (the loop's private headers) with that
    ISA's flags on x86-64 (elsewhere with none: another baseline copy,
    never chosen), so that no other code is built with them.

    Args:
      name: the loop's name; the sources are `<name>_<isa>.cc`.
      srcs: headers those sources include.
      deps: their dependencies.

    Returns:
      The libraries, for the dispatching library's `deps`.
    """
    for isa, copts in ISA_COPTS.items():
        native.cc_library(
            name = name + "_" + isa,
            srcs = [name + "_" + isa + ".cc"] + srcs,
            copts = select({
                "//runtime/kernels:x86_64": copts,
                "//conditions:default": [],
            }),
            deps = deps,
            visibility = ["//visibility:private"],
        )
    return [":" + name + "_" + isa for isa in ISA_COPTS]
