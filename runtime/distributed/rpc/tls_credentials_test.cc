#include "runtime/distributed/rpc/tls_credentials.h"

#include <cstdlib>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace stepflow {
namespace {

// A file under the test's temporary directory holding `text`.
std::string WriteFile(const std::string& name, const std::string& text) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path =
      std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// Not a usable certificate: LoadTlsConfig only reads PEM blocks, gRPC
// parses them.
constexpr char kPem[] =
    "-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n";

TEST(TlsCredentialsTest, NoFilesIsPlaintext) {
  TlsConfig tls;
  tls.root_certs = "stale";
  ASSERT_TRUE(LoadTlsConfig("", "", "", &tls).ok());
  EXPECT_FALSE(tls.enabled());
  EXPECT_TRUE(tls.root_certs.empty());
}

TEST(TlsCredentialsTest, ReadsTheThreeFiles) {
  const std::string cert = WriteFile("cert.pem", std::string(kPem) + "c");
  const std::string key = WriteFile("key.pem", std::string(kPem) + "k");
  const std::string ca = WriteFile("ca.pem", std::string(kPem) + "a");
  TlsConfig tls;
  ASSERT_TRUE(LoadTlsConfig(cert, key, ca, &tls).ok());
  EXPECT_TRUE(tls.enabled());
  EXPECT_EQ(tls.cert_chain, std::string(kPem) + "c");
  EXPECT_EQ(tls.private_key, std::string(kPem) + "k");
  EXPECT_EQ(tls.root_certs, std::string(kPem) + "a");
  // A client may go without a certificate of its own.
  ASSERT_TRUE(LoadTlsConfig("", "", ca, &tls).ok());
  EXPECT_TRUE(tls.enabled());
  EXPECT_TRUE(tls.cert_chain.empty());
}

void ExpectInvalid(const std::string& cert, const std::string& key,
                   const std::string& ca, const std::string& says) {
  TlsConfig tls;
  absl::Status s = LoadTlsConfig(cert, key, ca, &tls);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find(says), std::string::npos)
      << s << " (want '" << says << "')";
  EXPECT_FALSE(tls.enabled());
}

TEST(TlsCredentialsTest, BadFlagsAreInvalidArgument) {
  const std::string pem = WriteFile("any.pem", kPem);
  const std::string text = WriteFile("text.txt", "not a certificate");
  ExpectInvalid(pem, pem, "", "TLS needs --tls_ca");
  ExpectInvalid(pem, "", pem, "--tls_cert and --tls_key go together");
  ExpectInvalid("", pem, pem, "--tls_cert and --tls_key go together");
  ExpectInvalid("", "", "/nonexistent/ca.pem",
                "--tls_ca: cannot read '/nonexistent/ca.pem'");
  ExpectInvalid(text, pem, pem, "--tls_cert: '" + text + "' holds no PEM");
}

// The gRPC messages are those gRPC 1.51 gave in tls_cluster_test's cases.
TEST(TlsCredentialsTest, ExplainsFailedConnections) {
  TlsConfig tls;
  tls.root_certs = kPem;
  const std::string closed =
      "failed to connect to all addresses; last error: UNAVAILABLE: "
      "ipv4:127.0.0.1:1: Socket closed";
  EXPECT_NE(ExplainConnectFailure(tls, closed)
                .find("TLS handshake failed: the server closed the connection "
                      "during it"),
            std::string::npos);
  EXPECT_NE(ExplainConnectFailure(tls, closed).find("presents none"),
            std::string::npos);
  tls.cert_chain = kPem;
  EXPECT_NE(ExplainConnectFailure(tls, closed)
                .find("presents one the server's CA may not have signed"),
            std::string::npos);
  EXPECT_NE(ExplainConnectFailure(
                tls,
                "failed to connect to all addresses; last error: UNKNOWN: "
                "ipv4:127.0.0.1:1: Ssl handshake failed: SSL_ERROR_SSL: "
                "error:0A000086:SSL routines::certificate verify failed")
                .find("does not accept the server's certificate"),
            std::string::npos);
  EXPECT_NE(ExplainConnectFailure(
                tls,
                "failed to connect to all addresses; last error: UNKNOWN: "
                "ipv4:127.0.0.1:1: Peer name 127.0.0.1 is not in peer "
                "certificate")
                .find("does not name the host dialed"),
            std::string::npos);
  EXPECT_NE(ExplainConnectFailure(TlsConfig(), closed).find("require TLS?"),
            std::string::npos);
  // A server that is down, or a call that failed after connecting: no
  // TLS story.
  EXPECT_EQ(ExplainConnectFailure(
                tls,
                "failed to connect to all addresses; last error: "
                "UNAVAILABLE: ipv4:127.0.0.1:1: Connection refused"),
            "");
  EXPECT_EQ(ExplainConnectFailure(tls, "Socket closed"), "");
}

}  // namespace
}  // namespace stepflow
