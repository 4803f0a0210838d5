#pragma once
// What the `skein` command-line tests share (CliTest.cpp, CliFormatsTest.cpp): running the real binary over a pipe,
// reading its JSON, the small C programs they check and a fixture that writes them into a fresh temporary directory.
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "RaceProgram.h"

namespace skein_cli_test {

namespace fs = std::filesystem;
using nlohmann::json;

struct Outcome {
    int exitCode = -1;
    std::string out; // stdout
    std::string err; // stderr
    double ms = 0;   // wall time of the whole process
};

inline std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
}

// Runs `skein ARGS` (ARGS go through the shell, unquoted) with stdout on a pipe and stderr in a temporary file.
inline Outcome run(const std::string& args) {
    char errPath[] = "/tmp/skein-cli-stderr-XXXXXX";
    int fd = mkstemp(errPath);
    if (fd >= 0) close(fd);
    std::string cmd = std::string(SKEIN_BINARY) + " " + args + " 2>" + errPath;
    auto start = std::chrono::steady_clock::now();
    FILE* p = popen(cmd.c_str(), "r");
    Outcome r;
    if (!p) return r;
    std::array<char, 65536> buf;
    while (size_t n = fread(buf.data(), 1, buf.size(), p)) r.out.append(buf.data(), n);
    int status = pclose(p);
    r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    r.err = slurp(errPath);
    unlink(errPath);
    return r;
}

inline json parseJson(const Outcome& r) {
    try {
        return json::parse(r.out);
    } catch (const std::exception& e) {
        ADD_FAILURE() << "stdout is not JSON (" << e.what() << "):\n" << r.out << "\nstderr:\n" << r.err;
        return json::object();
    }
}

// ---- the C programs ----

// A write/write race on `x`: thread 1 writes at line 3, main writes at line 7 (RaceProgram.h).
using skein::e2e::kRace;

// Lost update on an atomic counter (no race): the assertion at line 15 fails in some interleavings.
inline const char* const kLostUpdate = R"(#include <pthread.h>
#include <assert.h>
_Atomic int c;
void *t(void *a) {
  int v = c;
  c = v + 1;
  return 0;
}
int main() {
  pthread_t a, b;
  pthread_create(&a, 0, t, 0);
  pthread_create(&b, 0, t, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(c == 2);
  return 0;
}
)";

// Two threads incrementing under a mutex: safe, several executions.
inline const char* const kSafeLocked = R"(#include <pthread.h>
#include <assert.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int c;
void *t(void *a) { pthread_mutex_lock(&m); c++; pthread_mutex_unlock(&m); return 0; }
int main() {
  pthread_t a, b;
  pthread_create(&a, 0, t, 0);
  pthread_create(&b, 0, t, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(c == 2);
  return 0;
}
)";

// ABBA deadlock.
inline const char* const kDeadlock = R"(#include <pthread.h>
pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
void *t(void *x) { pthread_mutex_lock(&b); pthread_mutex_lock(&a); pthread_mutex_unlock(&a); pthread_mutex_unlock(&b); return 0; }
int main() {
  pthread_t h;
  pthread_create(&h, 0, t, 0);
  pthread_mutex_lock(&a); pthread_mutex_lock(&b); pthread_mutex_unlock(&b); pthread_mutex_unlock(&a);
  pthread_join(h, 0);
  return 0;
}
)";

// A single-threaded loop of 10 iterations: exhaustive without a bound, bounded with --unroll=2.
inline const char* const kLoop = R"(#include <assert.h>
int main() {
  int s = 0;
  for (int i = 0; i < 10; i++) s += i;
  assert(s == 45);
  return 0;
}
)";

// The verdict depends on the macro N: an error exactly when N == 4; does not compile without N.
inline const char* const kNeedsN = R"(#include <assert.h>
int main() {
  int a[N];
  for (int i = 0; i < N; i++) a[i] = i;
  assert(sizeof(a) / sizeof(a[0]) != 4);
  return 0;
}
)";

class Cli : public ::testing::Test {
protected:
    void SetUp() override {
        char tmpl[] = "/tmp/skein-cli-test-XXXXXX";
        char* d = mkdtemp(tmpl);
        ASSERT_NE(d, nullptr);
        dir_ = d;
    }
    void TearDown() override {
        std::error_code ec;
        if (!dir_.empty()) fs::remove_all(dir_, ec);
    }
    // Writes `text` to DIR/name and returns the full path.
    std::string write(const std::string& name, const std::string& text) {
        std::string path = dir_ + "/" + name;
        fs::create_directories(fs::path(path).parent_path());
        std::ofstream(path, std::ios::binary) << text;
        return path;
    }
    std::string path(const std::string& name) const { return dir_ + "/" + name; }
    std::string dir_;
};

} // namespace skein_cli_test
