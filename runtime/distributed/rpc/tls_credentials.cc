#include "runtime/distributed/rpc/tls_credentials.h"

#include <fstream>
#include <sstream>
#include <utility>

#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace stepflow {
namespace {

absl::Status ReadPem(const std::string& flag, const std::string& path,
                     std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": cannot read '", path, "'"));
  }
  std::ostringstream text;
  text << in.rdbuf();
  *out = text.str();
  if (!absl::StrContains(*out, "-----BEGIN ")) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": '", path, "' holds no PEM block"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status LoadTlsConfig(const std::string& cert_file,
                           const std::string& key_file,
                           const std::string& ca_file, TlsConfig* out) {
  *out = TlsConfig();
  if (cert_file.empty() && key_file.empty() && ca_file.empty()) {
    return absl::OkStatus();
  }
  if (ca_file.empty()) {
    return absl::InvalidArgumentError(
        "TLS needs --tls_ca (the CA that signs the cluster's certificates)");
  }
  if (cert_file.empty() != key_file.empty()) {
    return absl::InvalidArgumentError(
        "--tls_cert and --tls_key go together (a certificate and its key)");
  }
  TlsConfig tls;
  absl::Status s = ReadPem("tls_ca", ca_file, &tls.root_certs);
  if (s.ok() && !cert_file.empty()) {
    s = ReadPem("tls_cert", cert_file, &tls.cert_chain);
  }
  if (s.ok() && !key_file.empty()) {
    s = ReadPem("tls_key", key_file, &tls.private_key);
  }
  if (!s.ok()) return s;
  *out = std::move(tls);
  return absl::OkStatus();
}

std::shared_ptr<grpc::ServerCredentials> MakeServerCredentials(
    const TlsConfig& tls) {
  if (!tls.enabled()) return grpc::InsecureServerCredentials();
  grpc::SslServerCredentialsOptions options(
      GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  options.pem_root_certs = tls.root_certs;
  options.pem_key_cert_pairs.push_back({tls.private_key, tls.cert_chain});
  return grpc::SslServerCredentials(options);
}

std::shared_ptr<grpc::ChannelCredentials> MakeChannelCredentials(
    const TlsConfig& tls) {
  if (!tls.enabled()) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = tls.root_certs;
  options.pem_private_key = tls.private_key;
  options.pem_cert_chain = tls.cert_chain;
  return grpc::SslCredentials(options);
}

std::string ExplainConnectFailure(const TlsConfig& tls,
                                  const std::string& grpc_message) {
  if (!absl::StrContains(grpc_message, "failed to connect")) return "";
  if (absl::StrContains(grpc_message, "certificate verify failed")) {
    return "TLS handshake failed: this side does not accept the server's "
           "certificate (the CA this side trusts did not sign it)";
  }
  if (absl::StrContains(grpc_message, "is not in peer certificate")) {
    return "TLS handshake failed: the server's certificate does not name "
           "the host dialed (its subjectAltName must)";
  }
  if (absl::StrContains(grpc_message, "Ssl handshake failed")) {
    return "TLS handshake failed";
  }
  if (!absl::StrContains(grpc_message, "Socket closed")) return "";
  if (tls.enabled()) {
    return absl::StrCat(
        "TLS handshake failed: the server closed the connection during it, "
        "as a server does when it refuses a client's certificate (this "
        "side presents ",
        tls.cert_chain.empty() ? "none"
                               : "one the server's CA may not have "
                                 "signed",
        "; the server's log names the reason)");
  }
  return "the server closed the connection as it opened (does it require "
         "TLS? then this side needs the CA and a client certificate)";
}

}  // namespace stepflow
