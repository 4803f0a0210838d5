// The real `skein` binary over a pipe: exit codes and output formats.
#include <array>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

struct Run {
    int exitCode;
    std::string out;
};

Run run(const std::string& args) {
    std::string cmd = std::string(SKEIN_BINARY) + " " + args + " 2>/dev/null";
    FILE* p = popen(cmd.c_str(), "r");
    std::string out;
    std::array<char, 4096> buf;
    while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
    int status = pclose(p);
    return {WEXITSTATUS(status), out};
}

std::string example(const std::string& name) { return std::string(SKEIN_SOURCE_DIR) + "/examples/" + name; }

TEST(Cli, UnknownOptionIsBadInput) { EXPECT_EQ(run("check --frobnicate x.c").exitCode, 3); }
TEST(Cli, MissingFileIsBadInput) { EXPECT_EQ(run("check /nonexistent/file.c").exitCode, 3); }

} // namespace
