// Graphviz rendering of a counterexample's partial order: one cluster per thread, edges styled by kind.
#include <map>
#include <ostream>

#include "server/cli/Outputs.h"

namespace skein::cli {

namespace {
std::string escape(const std::string& s) {
    std::string o;
    for (char c : s) {
        if (c == '"' || c == '\\') o.push_back('\\');
        o.push_back(c);
    }
    return o;
}
} // namespace

void writeDot(std::ostream& os, const report::CheckResult& r) {
    os << "digraph skein {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n";
    if (r.errors.empty()) {
        os << "  none [label=\"no counterexample: " << escape(std::string(report::verdictName(r.verdict))) << "\"];\n}\n";
        return;
    }
    const report::ErrorReport& e = r.errors.front();
    os << "  label=\"" << escape(std::string(report::errorKindName(e.kind)) + ": " + e.message) << "\";\n";
    std::map<uint32_t, std::vector<const report::GraphNode*>> byThread;
    for (const report::GraphNode& n : e.graph.nodes) byThread[n.thread].push_back(&n);
    for (auto& [t, nodes] : byThread) {
        os << "  subgraph cluster_t" << t << " {\n    label=\"thread " << t << "\";\n";
        for (const report::GraphNode* n : nodes) {
            static const report::SourceLocation unknown;
            const report::SourceLocation& where = n->id < e.trace.size() ? e.trace[n->id].location : unknown;
            os << "    n" << n->id << " [label=\"" << escape(n->label) << "\\n"
               << escape(where.file.substr(where.file.rfind('/') + 1)) << ":" << where.line << "\"];\n";
        }
        os << "  }\n";
    }
    for (const report::GraphEdge& g : e.graph.edges) {
        std::string style;
        switch (g.kind) {
        case report::EdgeKind::ProgramOrder: style = "color=black"; break;
        case report::EdgeKind::ReadsFrom: style = "color=green, label=rf"; break;
        case report::EdgeKind::Coherence: style = "color=orange, label=co"; break;
        case report::EdgeKind::Sync: style = "color=blue, label=sync"; break;
        case report::EdgeKind::Race: style = "color=red, style=dashed, dir=both, label=race"; break;
        }
        os << "  n" << g.from << " -> n" << g.to << " [" << style << "];\n";
    }
    os << "}\n";
}

} // namespace skein::cli
