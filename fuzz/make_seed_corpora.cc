// Writes the seed inputs of every fuzzer (seed_specs.h) into
// <dir>/<fuzzer>/seed_<name>, creating the directories; existing files
// with other names (inputs the fuzzers found) are left alone.
//
//   bazel run //fuzz:make_seed_corpora -- "$PWD/fuzz/corpus"
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "fuzz/grpc_server_seeds.h"
#include "fuzz/seed_specs.h"

namespace {

namespace fs = std::filesystem;
using stepflow::fuzzing::Seed;

bool WriteSeeds(const fs::path& dir, const std::vector<Seed>& seeds) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "cannot create %s: %s\n", dir.c_str(),
                 ec.message().c_str());
    return false;
  }
  for (const Seed& seed : seeds) {
    const fs::path path = dir / ("seed_" + seed.name);
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(seed.bytes.data(), static_cast<std::streamsize>(seed.bytes.size()));
    f.close();
    if (!f) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      return false;
    }
  }
  std::printf("%s: %zu seeds\n", dir.c_str(), seeds.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_ROOT\n", argv[0]);
    return 1;
  }
  namespace fz = stepflow::fuzzing;
  const fs::path root = argv[1];
  const std::vector<std::pair<const char*, std::vector<Seed>>> corpora = {
      {"graphdef_binary_fuzzer", fz::GraphDefBinarySeeds()},
      {"graphdef_text_fuzzer", fz::GraphDefTextSeeds()},
      {"pipeline_fuzzer", fz::PipelineSeeds()},
      {"tensor_proto_fuzzer", fz::TensorProtoSeeds()},
      {"rendezvous_key_fuzzer", fz::RendezvousKeySeeds()},
      {"grpc_server_fuzzer", fz::GrpcServerSeeds()},
  };
  for (const auto& [name, seeds] : corpora) {
    if (!WriteSeeds(root / name, seeds)) return 1;
  }
  return 0;
}
