// Certificates and bcrypt hashes made by a test, in a temporary folder: a CA and certificates it signs
// (openssl, P-256 keys: quick to make), and password hashes as htpasswd -B makes them (libxcrypt). Shared by
// the listener's tests and remote write's over HTTPS.
#pragma once

#include <crypt.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <string>

#include "temp_dir.h"

namespace gpuwatch::test {

class Dir {
 public:
  const std::string& path() const { return dir_.path(); }
  std::string file(const std::string& name) const { return dir_.path() + "/" + name; }
  void write(const std::string& name, const std::string& text) const { std::ofstream(file(name)) << text; }

 private:
  store::test::TempDir dir_;
};

inline void run(const std::string& command) {
  ASSERT_EQ(std::system((command + " >/dev/null 2>&1").c_str()), 0) << command;
}

// A CA, and certificates it signs (P-256 keys: quick to make).
inline void make_ca(const Dir& d, const std::string& name) {
  run("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=" + name +
      " -keyout " + d.file(name + ".key") + " -out " + d.file(name + ".pem"));
}
inline void make_signed(const Dir& d, const std::string& ca, const std::string& name,
                        const std::string& san) {
  run("openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=" + name + " -keyout " +
      d.file(name + ".key") + " -out " + d.file(name + ".csr"));
  d.write(name + ".ext", san.empty() ? "extendedKeyUsage=clientAuth\n" : "subjectAltName=" + san + "\n");
  run("openssl x509 -req -days 2 -in " + d.file(name + ".csr") + " -CA " + d.file(ca + ".pem") + " -CAkey " +
      d.file(ca + ".key") + " -CAcreateserial -out " + d.file(name + ".pem") + " -extfile " +
      d.file(name + ".ext"));
}

inline std::string bcrypt(const std::string& password) {
  char salt[CRYPT_GENSALT_OUTPUT_SIZE];
  EXPECT_NE(crypt_gensalt_rn("$2b$", 5, nullptr, 0, salt, sizeof salt), nullptr);
  crypt_data data{};
  return crypt_r(password.c_str(), salt, &data);
}

}  // namespace gpuwatch::test
