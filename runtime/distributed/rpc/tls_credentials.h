// TlsConfig: mutual TLS for gRPC — the PEM text of a certificate chain,
// its private key and the CA certificates trusted to sign the peers', and
// the gRPC credentials made of them (gRPC's own SslServerCredentials and
// SslCredentials; nothing here speaks TLS itself).
//
// A server with a TlsConfig requires every caller to present a
// certificate that the CA signed, and refuses the handshake otherwise
// (GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY). A client
// verifies the server's certificate against the CA, and against the host
// it dials: the server's certificate must name that host (a subjectAltName
// DNS name or IP address, e.g. IP:127.0.0.1); it presents its own
// certificate when it has one.
//
// Thread-safety: value types and pure functions.
#ifndef STEPFLOW_RUNTIME_DISTRIBUTED_RPC_TLS_CREDENTIALS_H_
#define STEPFLOW_RUNTIME_DISTRIBUTED_RPC_TLS_CREDENTIALS_H_

#include <memory>
#include <string>

#include "absl/status/status.h"

namespace grpc {
class ChannelCredentials;
class ServerCredentials;
}  // namespace grpc

namespace stepflow {

struct TlsConfig {
  std::string cert_chain;   // PEM: this side's certificate (and chain).
  std::string private_key;  // PEM: its private key.
  std::string root_certs;   // PEM: the CA(s) that sign the peers.
  // TLS is on when a CA is given; off (plaintext) when all are empty.
  bool enabled() const { return !root_certs.empty(); }
};

// Reads the PEM files `cert_file`, `key_file` and `ca_file` into `*out`.
// All three empty: TLS off (`*out` cleared). Otherwise `ca_file` is
// needed, and `cert_file` and `key_file` come together (a client may
// leave both out: it then has no certificate to show, and a server that
// requires one refuses it). InvalidArgument naming the flag for a missing
// or half-given pair, or a file that is unreadable or holds no PEM block.
absl::Status LoadTlsConfig(const std::string& cert_file,
                           const std::string& key_file,
                           const std::string& ca_file, TlsConfig* out);

// For a server (cert_chain and private_key set): requires and verifies
// client certificates signed by root_certs. Plaintext when !enabled().
std::shared_ptr<grpc::ServerCredentials> MakeServerCredentials(
    const TlsConfig& tls);

// For a client's channels: verifies the server against root_certs and
// presents cert_chain if set. Plaintext when !enabled().
std::shared_ptr<grpc::ChannelCredentials> MakeChannelCredentials(
    const TlsConfig& tls);

// What a failed connection means, for the message of the call that failed
// (Unavailable, with gRPC's text `grpc_message`): "" unless the text shows
// a connection attempt that TLS (or its absence) explains —
//  - the handshake failed on this side: the server's certificate is not
//    signed by root_certs, or does not name the host dialed;
//  - with TLS on, the server closed the connection during the handshake
//    ("Socket closed"): under TLS 1.3 that is how a server refuses a
//    client certificate (none, or one its CA did not sign), which the
//    client only learns as the closed socket;
//  - with TLS off, the server closed the connection as it opened: it may
//    speak only TLS.
std::string ExplainConnectFailure(const TlsConfig& tls,
                                  const std::string& grpc_message);

}  // namespace stepflow

#endif  // STEPFLOW_RUNTIME_DISTRIBUTED_RPC_TLS_CREDENTIALS_H_
