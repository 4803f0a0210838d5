#pragma once
// The end-to-end tests' basic racy program, shared by the command-line tests (CliSupport.h) and the language
// server's (LspTestSupport.h): a write/write race on `x` — thread 1 writes at line 3, main writes at line 7. Tests
// assert those lines, so the text is kept exactly as it is.
namespace skein::e2e {

inline const char* const kRace = R"(#include <pthread.h>
int x;
void *t(void *a) { x = 1; return 0; }
int main() {
  pthread_t a;
  pthread_create(&a, 0, t, 0);
  x = 2;
  pthread_join(a, 0);
  return 0;
}
)";

} // namespace skein::e2e
