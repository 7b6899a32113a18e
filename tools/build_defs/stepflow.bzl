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
