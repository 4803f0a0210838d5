// skein: the command-line entry point. Subcommands: check, bench, lsp (dap comes with a later issue).
#include <cstring>
#include <iostream>

#include "server/cli/Commands.h"
#include "server/lsp/Server.h"

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
