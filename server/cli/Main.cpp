// skein: the command-line entry point. Subcommands: check, bench, lsp (dap comes with a later issue).
#include <cstring>
#include <iostream>

#include "server/cli/Commands.h"
#include "server/lsp/Server.h"

// jemalloc's options, read when it starts (the executable links jemalloc: CMakeLists.txt). Transparent huge pages
// for its extents: a qpor run allocates up to gigabytes of small events; with 4 KiB pages, when page faults are
// slow (a loaded machine) they were a third of the run (lockcnt N=5 K=2: 8.3 → 5.5 s wall), and with fewer TLB
// misses lastwriter/peterson run ~15 % faster even on a quiet one (bench/README.md "Huge pages"). The machine's THP
// mode must be `madvise` or `always` for this to act; with `never` it is a no-op. MALLOC_CONF overrides it.
extern "C" {
const char* malloc_conf = "thp:always";
}

namespace {
void usage(std::ostream& os) {
    os << "usage: skein <command> [options]\n\n"
          "commands:\n"
          "  check [options] FILE.c [-- clang flags]   model-check a multithreaded C program\n"
          "  bench [options] ROWS                       run a benchmark table (see bench/README.md)\n"
          "  lsp [--stdio] [--workers=N]                the language server over stdio (docs/protocol.md)\n"
          "  help                                       this text; `skein check --help` for check's options\n";
}
} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        usage(std::cerr);
        return 3;
    }
    std::string cmd = argv[1];
    std::vector<std::string> args(argv + 2, argv + argc);
    if (cmd == "check") return skein::cli::runCheck(args);
    if (cmd == "bench") return skein::cli::runBench(args);
    if (cmd == "lsp") return skein::lsp::runLspServer(argc - 2, argv + 2);
    if (cmd == "help" || cmd == "--help" || cmd == "-h") {
        usage(std::cout);
        return 0;
    }
    if (cmd == "--version") {
        std::cout << "skein 0.1.0\n";
        return 0;
    }
    std::cerr << "skein: unknown command `" << cmd << "`\n";
    usage(std::cerr);
    return 3;
}
