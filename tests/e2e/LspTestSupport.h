#pragma once
// What the `skein lsp` end-to-end tests share: the C programs they edit, small helpers on the published JSON,
// and the fixture that starts the real binary under a fake client (LspClient.h).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "LspClient.h"
#include "RaceProgram.h"

namespace skein::test {

using skein::e2e::kRace; // RaceProgram.h

// The race fixed: main writes x only after joining the thread.
inline const char* kRaceFixed = R"(#include <pthread.h>
int x;
void *t(void *a) { x = 1; return 0; }
int main() {
  pthread_t a;
  pthread_create(&a, 0, t, 0);
  pthread_join(a, 0);
  x = 2;
  return 0;
}
)";

inline const char* kLostUpdate = R"(#include <assert.h>
#include <pthread.h>
int counter;
void *inc(void *arg) { counter++; return 0; }
int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, 0, inc, 0);
  pthread_create(&t2, 0, inc, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  assert(counter == 2);
  return 0;
}
)";

// Millions of interleavings under dfs, and no error: an exploration that runs until cancelled.
inline const char* kLong = R"(#include <pthread.h>
int counter;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
void *inc(void *arg) {
  for (int i = 0; i < 3; i++) { pthread_mutex_lock(&m); counter++; pthread_mutex_unlock(&m); }
  return 0;
}
int main(void) {
  pthread_t t[5];
  for (int i = 0; i < 5; i++) pthread_create(&t[i], 0, inc, 0);
  for (int i = 0; i < 5; i++) pthread_join(t[i], 0);
  return 0;
}
)";

inline std::string uriOf(const std::string& name) {
    return "file:///skein-lsp-test/" + name;
}

inline json diagnosticsOf(const json& publish) {
    return publish["diagnostics"];
}

inline std::vector<json> withCode(const json& diags, const std::string& code) {
    std::vector<json> out;
    for (const json& d : diags)
        if (d.value("code", "") == code) out.push_back(d);
    return out;
}

inline std::string readFile(const std::string& path) {
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

class Lsp : public ::testing::Test {
  protected:
    LspClient client{SKEIN_BINARY};
};

} // namespace skein::test
