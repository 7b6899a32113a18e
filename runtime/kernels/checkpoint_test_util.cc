#include "runtime/kernels/checkpoint_test_util.h"

#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include "testing/test_tmpdir.h"

namespace stepflow {
namespace test {

std::string MakeTempDir() {
  std::string tmpl = TestTmpPath("checkpoint_test_XXXXXX");
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr) {
    ADD_FAILURE() << "mkdtemp " << tmpl << ": " << std::strerror(errno);
    return "";
  }
  return std::string(buf.data());
}

std::string ReadFileOrDie(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    ADD_FAILURE() << "cannot read " << path;
    return "";
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFileOrDie(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  if (!out) ADD_FAILURE() << "cannot write " << path;
}

void FlipByte(const std::string& path, uint64_t offset) {
  std::string data = ReadFileOrDie(path);
  if (offset >= data.size()) {
    ADD_FAILURE() << "offset " << offset << " beyond " << path;
    return;
  }
  data[offset] = static_cast<char>(data[offset] ^ 0xFF);
  WriteFileOrDie(path, data);
}

void TruncateFile(const std::string& path, uint64_t size) {
  if (::truncate(path.c_str(), static_cast<off_t>(size)) != 0) {
    ADD_FAILURE() << "truncate " << path << ": " << std::strerror(errno);
  }
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    ADD_FAILURE() << "opendir " << dir << ": " << std::strerror(errno);
    return names;
  }
  while (struct dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace test
}  // namespace stepflow
