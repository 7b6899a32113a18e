#include "runtime/env/real/unused_port.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace stepflow {

absl::StatusOr<int> PickUnusedPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("socket: ", std::strerror(errno)));
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;  // The kernel picks a free port.
  socklen_t len = sizeof addr;
  int port = -1;
  int err = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    err = errno;
  } else {
    port = ntohs(addr.sin_port);
  }
  close(fd);
  if (port <= 0) {
    return absl::UnavailableError(
        absl::StrCat("no unused loopback port: ", std::strerror(err)));
  }
  return port;
}

}  // namespace stepflow
