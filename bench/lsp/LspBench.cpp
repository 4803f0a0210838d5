// Latency benchmark of `skein lsp` over pipes (bench/lsp/README.md). Drives the real binary with the tests'
// fake client and prints, per program, the median and worst of N runs of:
//   still-fails   didChange (a real edit that keeps the bug) → first publishDiagnostics of that version,
//   minus debounce replay        the server's own measurement of replaying the previous counterexamples
//   (status message) full          the same didChange → status "done" (the whole exploration), minus debounce
//   comment       didChange (comment-only edit) → republished diagnostics of that version, minus debounce
//                 (the token-level preview, published before compiling)
//   cancel        skein.cancel during a long dfs exploration → status "cancelled"
//   supersede     didChange during a long dfs exploration → status "cancelled" (superseded) of the old
//   version
//   comment while exploring   a comment-only didChange while a long exploration runs → the diagnostics found
//                 so far republished for the new version (the running check adopts the edit; no debounce)
//   edit during compile   on a 3,248-line file (Clang ~60 ms), debounce 0: a real didChange → its first
//                 diagnostics, alone and when it arrives 10 ms after another real edit (whose compile, not
//                 interruptible, it must wait for)
// usage: lsp_bench SKEIN_BINARY SOURCE_DIR [runs]
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>

#include "../../tests/e2e/LspClient.h"

using namespace skein::test;

namespace {

constexpr int kDebounceMs = 300;

std::string readFile(const std::string& path) {
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

double ms(Clock::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
}

struct Series {
    std::vector<double> v;
    void add(double x) { v.push_back(x); }
    std::string str() {
        if (v.empty()) return "n/a";
        std::sort(v.begin(), v.end());
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.1f / %.1f", v[v.size() / 2], v.back());
        return buf;
    }
};

bool isPublish(const json& m, const std::string& uri, int version) {
    return m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri &&
           m["params"].value("version", -1) == version;
}

const char* kLong = R"(#include <pthread.h>
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

std::string padded(const std::string& text, int functions) {
    std::string pad = "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n";
    for (int i = 0; i < functions; ++i)
        pad += "int helper_" + std::to_string(i) +
               "(int a, int b) {\n  int s = 0;\n"
               "  for (int i = 0; i < a; i++) {\n    if (i % 3 == " +
               std::to_string(i % 3) + ") s += b * i;\n    else s -= i;\n  }\n  return s + " + std::to_string(i) +
               ";\n}\n";
    return pad + text;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s SKEIN_BINARY SOURCE_DIR [runs]\n", argv[0]);
        return 2;
    }
    std::string binary = argv[1], root = argv[2];
    int runs = argc > 3 ? std::atoi(argv[3]) : 10;
    std::printf("%-30s %-16s %-12s %-18s %-16s  (median / worst of %d, ms; debounce %d ms excluded)\n",
                "program", "still-fails", "replay", "full exploration", "comment", runs, kDebounceMs);
    struct Row {
        const char* file;
        const char* label;
        json settings;
    };
    std::vector<Row> rows = {
        {"lost_update.c", "lost_update.c", json::object()},
        {"abba_deadlock.c", "abba_deadlock.c", json::object()},
        {"philosophers.c", "philosophers.c", json::object()},
        {"bank_transfer.c", "bank_transfer.c", json::object()},
        {"peterson_broken.c", "peterson_broken.c", json::object()},
        {"use_after_free.c", "use_after_free.c", json::object()},
        // A long exploration (134,545 executions): the replay answers long before the exploration ends.
        {"lost_update.c", "lost_update.c -DN=4 dfs", json{{"algorithm", "dfs"}, {"clangFlags", {"-DN=4"}}}},
        // A 3,248-line file (400 extra functions): compiling takes ~60 ms.
        {"lost_update.c", "lost_update.c + 3200 lines", json{{"padding", 400}}},
    };
    for (const Row& row : rows) {
        std::string name = row.label;
        std::string text = readFile(root + "/examples/" + row.file);
        if (text.empty()) continue;
        json settings = row.settings;
        if (settings.contains("padding")) {
            text = padded(text, settings["padding"].get<int>());
            settings.erase("padding");
        }
        LspClient client(binary);
        settings["debounceMs"] = kDebounceMs;
        client.initialize(settings);
        std::string uri = "file:///skein-bench/" + std::string(row.file);
        client.open(uri, text);
        auto first = client.waitStatus(uri, 1, "done", 120s);
        if (!first) {
            std::printf("%-30s (no result)\n", name.c_str());
            continue;
        }
        Series still, replay, comment, full;
        int version = 1;
        std::string current = text;
        for (int r = 0; r < runs; ++r) {
            // A real edit that keeps the bug: one more global.
            current += "int skein_bench_" + std::to_string(r) + " = " + std::to_string(r) + ";\n";
            ++version;
            size_t from = client.count();
            auto sent = Clock::now();
            client.changeFull(uri, current, version);
            auto pub = client.waitFor([&](const json& m) { return isPublish(m, uri, version); }, 60s, &from);
            if (pub) still.add(ms(pub->at - sent) - kDebounceMs);
            size_t from2 = 0;
            auto rep = client.waitFor(
                [&](const json& m) {
                    return m.value("method", "") == "skein/status" && m["params"]["version"] == version &&
                           m["params"]["state"] == "replaying" && m["params"].contains("message");
                },
                60s, &from2);
            if (rep) {
                std::smatch sm;
                std::string msg = rep->message["params"]["message"];
                if (std::regex_search(msg, sm, std::regex(R"(replayed in ([0-9.]+) ms)")))
                    replay.add(std::stod(sm[1]));
            }
            if (auto done = client.waitStatus(uri, version, "done", 120s))
                full.add(ms(done->at - sent) - kDebounceMs);
            // A comment-only edit.
            ++version;
            current = "// edit " + std::to_string(r) + "\n" + current;
            from = client.count();
            sent = Clock::now();
            client.changeFull(uri, current, version);
            pub = client.waitFor([&](const json& m) { return isPublish(m, uri, version); }, 60s, &from);
            if (pub) comment.add(ms(pub->at - sent) - kDebounceMs);
            client.waitStatus(uri, version, "done", 120s);
        }
        std::printf("%-30s %-16s %-12s %-18s %-16s\n", name.c_str(), still.str().c_str(),
                    replay.str().c_str(), full.str().c_str(), comment.str().c_str());
        client.shutdownAndExit();
    }

    // Cancellation latency on a long dfs exploration.
    Series cancel, supersede;
    for (int r = 0; r < runs; ++r) {
        LspClient client(binary);
        client.initialize(json{{"algorithm", "dfs"}, {"timeLimitSeconds", 0}, {"debounceMs", 0}});
        std::string uri = "file:///skein-bench/long.c";
        client.open(uri, kLong);
        size_t from = 0;
        client.waitStatus(uri, 1, "exploring", 60s, &from);
        std::this_thread::sleep_for(200ms);
        auto sent = Clock::now();
        client.request("workspace/executeCommand", {{"command", "skein.cancel"}, {"arguments", {uri}}});
        if (auto c = client.waitStatus(uri, 1, "cancelled", 10s, &from)) cancel.add(ms(c->at - sent));
        from = client.count();
        client.request("workspace/executeCommand", {{"command", "skein.recheck"}, {"arguments", {uri}}});
        client.waitStatus(uri, 1, "exploring", 60s, &from);
        std::this_thread::sleep_for(200ms);
        sent = Clock::now();
        client.changeFull(uri, std::string(kLong) + "int v2;\n", 2);
        if (auto c = client.waitStatus(uri, 1, "cancelled", 10s, &from)) supersede.add(ms(c->at - sent));
        client.shutdownAndExit();
    }
    std::printf(
        "\ncancel → cancelled status: %s ms; didChange → old exploration cancelled: %s ms (median / worst)\n",
        cancel.str().c_str(), supersede.str().c_str());

    // A comment edit while a long exploration runs (it has found a race): the running check adopts it.
    Series adopt;
    std::string racy = kLong;
    racy.replace(racy.find("pthread_mutex_lock(&m); "), 24, "");
    for (int r = 0; r < runs; ++r) {
        LspClient client(binary);
        client.initialize(json{{"algorithm", "dfs"}, {"timeLimitSeconds", 0}, {"debounceMs", kDebounceMs}});
        std::string uri = "file:///skein-bench/racy-long.c";
        client.open(uri, racy);
        client.waitFor(
            [&](const json& m) {
                return isPublish(m, uri, 1) && !m["params"]["diagnostics"].empty();
            },
            60s);
        std::this_thread::sleep_for(100ms);
        size_t from = client.count();
        auto sent = Clock::now();
        client.changeFull(uri, "// a comment\n" + racy, 2);
        if (auto pub = client.waitFor([&](const json& m) { return isPublish(m, uri, 2); }, 10s, &from))
            adopt.add(ms(pub->at - sent));
        client.request("workspace/executeCommand", {{"command", "skein.cancel"}, {"arguments", {uri}}});
        client.shutdownAndExit();
    }
    std::printf("comment edit while exploring → moved diagnostics: %s ms (no debounce applies)\n",
                adopt.str().c_str());

    // A real edit that arrives while the previous one compiles (Clang is not interruptible).
    Series lone, busy;
    {
        std::string text = padded(readFile(root + "/examples/lost_update.c"), 400);
        LspClient client(binary);
        client.initialize(json{{"debounceMs", 0}});
        std::string uri = "file:///skein-bench/padded.c";
        client.open(uri, text);
        client.waitStatus(uri, 1, "done", 120s);
        int version = 1;
        for (int r = 0; r < runs; ++r) {
            text += "int lone_" + std::to_string(r) + ";\n";
            size_t from = client.count();
            auto sent = Clock::now();
            client.changeFull(uri, text, ++version);
            if (auto pub = client.waitFor([&](const json& m) { return isPublish(m, uri, version); }, 60s, &from))
                lone.add(ms(pub->at - sent));
            client.waitStatus(uri, version, "done", 120s);
            text += "int first_" + std::to_string(r) + ";\n";
            client.changeFull(uri, text, ++version);
            std::this_thread::sleep_for(10ms); // its compile is under way
            text += "int second_" + std::to_string(r) + ";\n";
            from = client.count();
            sent = Clock::now();
            client.changeFull(uri, text, ++version);
            if (auto pub = client.waitFor([&](const json& m) { return isPublish(m, uri, version); }, 60s, &from))
                busy.add(ms(pub->at - sent));
            client.waitStatus(uri, version, "done", 120s);
        }
        client.shutdownAndExit();
    }
    std::printf("3,248-line file, real edit → first diagnostics: alone %s ms; 10 ms after another edit %s ms\n",
                lone.str().c_str(), busy.str().c_str());
    return 0;
}
