// The vectorised float Erf / Erfc loops (runtime/kernels/erf_float.h), each
// copy this CPU runs, against TensorFlow's values over a sweep of the whole
// float range (testing/tf_ops/erf_sweep.py): the committed golden, and
// when STEPFLOW_ERF_SWEEP names a file (the live test writes a denser
// sweep there with the installed TensorFlow) that one too. Values compare
// as the op differential compares them (oracle::CompareTensors, with the
// tolerance of a graph holding the op).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "proto/graph.pb.h"
#include "runtime/framework/tensor.h"
#include "runtime/kernels/cpu_isa.h"
#include "runtime/kernels/erf_float.h"
#include "testing/tf_oracle/compare.h"

namespace stepflow {
namespace {

struct Sweep {
  std::vector<float> x, erf, erfc;
};

float FromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

// Reads erf_sweep.py's output; false (with a failure) if it cannot.
bool ReadSweep(const std::string& path, Sweep* sweep) {
  std::ifstream in(path);
  if (!in) {
    ADD_FAILURE() << "cannot read " << path;
    return false;
  }
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    uint32_t x, e, c;
    if (std::sscanf(line.c_str(), "%x %x %x", &x, &e, &c) != 3) {
      ADD_FAILURE() << path << ": bad line " << line;
      return false;
    }
    sweep->x.push_back(FromBits(x));
    sweep->erf.push_back(FromBits(e));
    sweep->erfc.push_back(FromBits(c));
  }
  return true;
}

Tensor ToTensor(const std::vector<float>& v) {
  Tensor t(DT_FLOAT, TensorShape({static_cast<int64_t>(v.size())}));
  std::memcpy(t.base<float>(), v.data(), v.size() * sizeof(float));
  return t;
}

GraphDef GraphWith(const std::string& op) {
  GraphDef g;
  NodeDef* n = g.add_node();
  n->set_name("y");
  n->set_op(op);
  return g;
}

// Runs every loop this CPU has over `sweep` and compares with TensorFlow.
void CheckSweep(const Sweep& sweep, const std::string& source) {
  ASSERT_GT(sweep.x.size(), 1000u) << source;
  const Tensor x = ToTensor(sweep.x);
  for (CpuIsa isa : {CpuIsa::kBaseline, CpuIsa::kAvx2, CpuIsa::kAvx512}) {
    if (!CpuSupports(isa)) continue;
    const erf_float::Kernels& k = erf_float::KernelsFor(isa);
    const std::string where = source + " (" + k.isa + ")";
    std::vector<float> got(sweep.x.size());
    k.erf(sweep.x.data(), got.size(), got.data());
    const absl::Status erf = oracle::CompareTensors(
        ToTensor(sweep.erf), ToTensor(got), GraphWith("Erf"), "Erf " + where);
    EXPECT_TRUE(erf.ok()) << erf;
    k.erfc(sweep.x.data(), got.size(), got.data());
    const absl::Status erfc =
        oracle::CompareTensors(ToTensor(sweep.erfc), ToTensor(got),
                               GraphWith("Erfc"), "Erfc " + where);
    EXPECT_TRUE(erfc.ok()) << erfc;
    // In place (the kernel reuses its input buffer) and at every length
    // (the tail of a partial vector) the values are the same.
    std::vector<float> inplace(sweep.x.begin(), sweep.x.begin() + 37);
    k.erfc(inplace.data(), inplace.size(), inplace.data());
    for (size_t i = 0; i < inplace.size(); ++i) {
      std::vector<float> one = {sweep.x[i]};
      k.erfc(one.data(), 1, one.data());
      EXPECT_EQ(std::memcmp(&one[0], &inplace[i], sizeof(float)), 0)
          << where << " element " << i;
      EXPECT_EQ(std::memcmp(&got[i], &inplace[i], sizeof(float)), 0)
          << where << " element " << i;
    }
  }
}

std::string Runfile(const std::string& path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  return std::string(srcdir == nullptr ? "." : srcdir) + "/" +
         (workspace == nullptr ? "stepflow" : workspace) + "/" + path;
}

TEST(ErfFloatSweepTest, MatchesTensorFlowGolden) {
  Sweep sweep;
  const std::string path =
      Runfile("testing/tf_goldens/erf/erf_float_sweep.txt");
  ASSERT_TRUE(ReadSweep(path, &sweep));
  CheckSweep(sweep, path);
}

TEST(ErfFloatSweepTest, MatchesTensorFlowLive) {
  const char* path = std::getenv("STEPFLOW_ERF_SWEEP");
  if (path == nullptr || *path == '\0') {
    GTEST_SKIP() << "STEPFLOW_ERF_SWEEP unset (erf_float_sweep_live_test "
                    "sets it)";
  }
  Sweep sweep;
  ASSERT_TRUE(ReadSweep(path, &sweep));
  CheckSweep(sweep, path);
}

}  // namespace
}  // namespace stepflow
