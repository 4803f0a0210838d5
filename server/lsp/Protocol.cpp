#include "server/lsp/Protocol.h"

#include "server/protocol/ResultJson.h"

namespace skein::lsp {
namespace {

template <class T> bool get(const json& j, const char* key, T& out) {
    if (!j.is_object()) return false;
    auto it = j.find(key);
    if (it == j.end()) return false;
    if constexpr (std::is_same_v<T, std::string>) {
        if (!it->is_string()) return false;
        out = it->template get<std::string>();
    } else if constexpr (std::is_same_v<T, bool>) {
        if (!it->is_boolean()) return false;
        out = it->template get<bool>();
    } else if constexpr (std::is_floating_point_v<T>) {
        if (!it->is_number()) return false;
        out = it->template get<T>();
    } else if constexpr (std::is_integral_v<T>) {
        if (!it->is_number_integer()) return false;
        if (std::is_unsigned_v<T> && it->template get<int64_t>() < 0) return false;
        out = it->template get<T>();
    } else {
        return fromJSON(*it, out);
    }
    return true;
}

} // namespace

json toJSON(const Position& p) {
    return {{"line", p.line}, {"character", p.character}};
}
bool fromJSON(const json& j, Position& out) {
    return get(j, "line", out.line) && get(j, "character", out.character);
}

json toJSON(const Range& r) {
    return {{"start", toJSON(r.start)}, {"end", toJSON(r.end)}};
}
bool fromJSON(const json& j, Range& out) {
    return get(j, "start", out.start) && get(j, "end", out.end);
}

json toJSON(const Location& l) {
    return {{"uri", l.uri}, {"range", toJSON(l.range)}};
}

bool fromJSON(const json& j, TextDocumentItem& out) {
    get(j, "languageId", out.languageId);
    return get(j, "uri", out.uri) && get(j, "version", out.version) && get(j, "text", out.text);
}
bool fromJSON(const json& j, TextDocumentIdentifier& out) {
    return get(j, "uri", out.uri);
}
bool fromJSON(const json& j, VersionedTextDocumentIdentifier& out) {
    return get(j, "uri", out.uri) && get(j, "version", out.version);
}
bool fromJSON(const json& j, TextDocumentContentChangeEvent& out) {
    if (j.is_object() && j.contains("range")) {
        Range r;
        if (!get(j, "range", r)) return false;
        out.range = r;
    }
    return get(j, "text", out.text);
}
bool fromJSON(const json& j, DidOpenTextDocumentParams& out) {
    return get(j, "textDocument", out.textDocument);
}
bool fromJSON(const json& j, DidChangeTextDocumentParams& out) {
    if (!get(j, "textDocument", out.textDocument)) return false;
    auto it = j.find("contentChanges");
    if (it == j.end() || !it->is_array()) return false;
    for (const json& c : *it) {
        TextDocumentContentChangeEvent e;
        if (!fromJSON(c, e)) return false;
        out.contentChanges.push_back(std::move(e));
    }
    return true;
}
bool fromJSON(const json& j, DidSaveTextDocumentParams& out) {
    std::string text;
    if (get(j, "text", text)) out.text = std::move(text);
    return get(j, "textDocument", out.textDocument);
}
bool fromJSON(const json& j, DidCloseTextDocumentParams& out) {
    return get(j, "textDocument", out.textDocument);
}
bool fromJSON(const json& j, TextDocumentPositionParams& out) {
    return get(j, "textDocument", out.textDocument) && get(j, "position", out.position);
}

bool fromJSON(const json& j, InitializeParams& out) {
    if (!j.is_object()) return false;
    auto flag = [&](const char* a, const char* b) {
        auto caps = j.find("capabilities");
        if (caps == j.end() || !caps->is_object() || !caps->contains(a) || !(*caps)[a].is_object())
            return false;
        const json& sub = (*caps)[a];
        return sub.contains(b) && sub[b].is_boolean() && sub[b].get<bool>();
    };
    out.workDoneProgress = flag("window", "workDoneProgress");
    out.configuration = flag("workspace", "configuration");
    if (auto caps = j.find("capabilities"); caps != j.end() && caps->is_object()) {
        const json& ws = caps->value("workspace", json::object());
        if (ws.is_object() && ws.contains("didChangeWatchedFiles") &&
            ws["didChangeWatchedFiles"].is_object()) {
            const json& w = ws["didChangeWatchedFiles"];
            out.watchFiles = w.contains("dynamicRegistration") && w["dynamicRegistration"] == true;
        }
    }
    if (auto it = j.find("initializationOptions"); it != j.end() && !it->is_null())
        out.initializationOptions = it->contains("skein") ? (*it)["skein"] : *it;
    return true;
}

json initializeResult() {
    return {{"capabilities", serverCapabilities()},
            {"serverInfo", {{"name", "skein"}, {"version", "0.1.0"}}}};
}

json toJSON(const WatchFilesRegistration& r) {
    json watchers = json::array();
    for (const std::string& g : r.globs) watchers.push_back({{"globPattern", g}});
    return {{"registrations", json::array({{{"id", "skein-watch-sources"},
                                            {"method", "workspace/didChangeWatchedFiles"},
                                            {"registerOptions", {{"watchers", watchers}}}}})}};
}

json toJSON(const ShowMessageParams& p) {
    return {{"type", int(p.type)}, {"message", p.message}};
}
json toJSON(const ConfigurationParams& p) {
    return {{"items", json::array({{{"section", p.section}}})}};
}
bool fromJSON(const json& j, WorkDoneProgressCancelParams& out) {
    return get(j, "token", out.token);
}
json toJSON(const WorkDoneProgressCreateParams& p) {
    return {{"token", p.token}};
}

json toJSON(const Settings& s) {
    return {{"algorithm", s.algorithm},
            {"alt", s.alt},
            {"unroll", s.unroll},
            {"maxSteps", s.maxSteps},
            {"maxEvents", s.maxEvents},
            {"maxThreads", s.maxThreads},
            {"maxExecutions", s.maxExecutions},
            {"timeLimitSeconds", s.timeLimitSeconds},
            {"nondet", s.nondet},
            {"maxErrors", s.maxErrors},
            {"detectRaces", s.detectRaces},
            {"reportKinds", s.reportKinds},
            {"debounceMs", s.debounceMs},
            {"maxConcurrentExplorations", s.maxConcurrentExplorations},
            {"clangFlags", s.clangFlags},
            {"replayFirst", s.replayFirst}};
}

bool applySettings(const json& j, Settings& out, std::string& error) {
    if (j.is_null()) return true;
    if (!j.is_object()) {
        error = "settings must be an object";
        return false;
    }
    Settings s = out;
    auto field = [&](const char* key, auto& into) {
        if (!j.contains(key) || j[key].is_null()) return true;
        if (get(j, key, into)) return true;
        error = std::string("setting `") + key + "` has the wrong type";
        return false;
    };
    auto list = [&](const char* key, auto& into) {
        if (!j.contains(key) || j[key].is_null()) return true;
        const json& v = j[key];
        using Elem = typename std::decay_t<decltype(into)>::value_type;
        if (v.is_array()) {
            std::decay_t<decltype(into)> tmp;
            for (const json& e : v) {
                if constexpr (std::is_same_v<Elem, std::string>) {
                    if (!e.is_string()) goto bad;
                } else {
                    if (!e.is_number_integer()) goto bad;
                }
                tmp.push_back(e.get<Elem>());
            }
            into = std::move(tmp);
            return true;
        }
    bad:
        error = std::string("setting `") + key + "` must be an array";
        return false;
    };
    bool ok = field("algorithm", s.algorithm) && field("alt", s.alt) && field("unroll", s.unroll) &&
              field("maxSteps", s.maxSteps) && field("maxEvents", s.maxEvents) &&
              field("maxThreads", s.maxThreads) && field("maxExecutions", s.maxExecutions) &&
              field("timeLimitSeconds", s.timeLimitSeconds) && list("nondet", s.nondet) &&
              field("maxErrors", s.maxErrors) && field("detectRaces", s.detectRaces) &&
              list("reportKinds", s.reportKinds) && field("debounceMs", s.debounceMs) &&
              field("maxConcurrentExplorations", s.maxConcurrentExplorations) &&
              list("clangFlags", s.clangFlags) && field("replayFirst", s.replayFirst);
    if (!ok) return false;
    if (s.nondet.empty()) {
        error = "setting `nondet` must not be empty";
        return false;
    }
    if (s.maxConcurrentExplorations == 0) s.maxConcurrentExplorations = 1;
    out = std::move(s);
    return true;
}

json toJSON(const Diagnostic& d) {
    json j = {{"range", toJSON(d.range)},
              {"severity", int(d.severity)},
              {"source", d.source},
              {"message", d.message}};
    if (!d.code.empty()) j["code"] = d.code;
    if (!d.relatedInformation.empty()) {
        json rel = json::array();
        for (const auto& r : d.relatedInformation)
            rel.push_back({{"location", toJSON(r.location)}, {"message", r.message}});
        j["relatedInformation"] = std::move(rel);
    }
    if (d.data) j["data"] = *d.data;
    return j;
}

json toJSON(const PublishDiagnosticsParams& p) {
    json diags = json::array();
    for (const Diagnostic& d : p.diagnostics) diags.push_back(toJSON(d));
    json j = {{"uri", p.uri}, {"diagnostics", std::move(diags)}};
    if (p.version) j["version"] = *p.version;
    return j;
}

json toJSON(const WorkDoneProgress& p) {
    json j;
    switch (p.kind) {
    case WorkDoneProgress::Kind::Begin:
        j = {{"kind", "begin"}, {"title", p.title}, {"cancellable", p.cancellable}};
        break;
    case WorkDoneProgress::Kind::Report:
        j = {{"kind", "report"}};
        break;
    case WorkDoneProgress::Kind::End:
        j = {{"kind", "end"}};
        break;
    }
    if (!p.message.empty()) j["message"] = p.message;
    if (p.percentage && p.kind != WorkDoneProgress::Kind::End) j["percentage"] = *p.percentage;
    return j;
}

json toJSON(const ProgressParams& p) {
    return {{"token", p.token}, {"value", toJSON(p.value)}};
}

std::string_view documentStateName(DocumentState s) {
    switch (s) {
    case DocumentState::Queued:
        return "queued";
    case DocumentState::Compiling:
        return "compiling";
    case DocumentState::Replaying:
        return "replaying";
    case DocumentState::Exploring:
        return "exploring";
    case DocumentState::Done:
        return "done";
    case DocumentState::Cancelled:
        return "cancelled";
    case DocumentState::Failed:
        return "failed";
    }
    return "?";
}

json toJSON(const StatusParams& p) {
    json j = {{"uri", p.uri},
              {"version", p.version},
              {"state", documentStateName(p.state)},
              {"errors", p.errors},
              {"reused", p.reused}};
    if (p.verdict) j["verdict"] = *p.verdict;
    if (p.stats) j["stats"] = protocol::toJSON(*p.stats);
    if (p.reusedFrom) j["reusedFrom"] = *p.reusedFrom;
    if (!p.algorithm.empty()) j["algorithm"] = p.algorithm;
    if (!p.message.empty()) j["message"] = p.message;
    if (p.fingerprint) j["fingerprint"] = *p.fingerprint;
    return j;
}

bool fromJSON(const json& j, CounterexampleParams& out) {
    return get(j, "textDocument", out.textDocument) && get(j, "id", out.id);
}
json toJSON(const CounterexampleResult& r) {
    return {{"uri", r.uri}, {"version", r.version}, {"id", r.id}, {"error", protocol::toJSON(r.error)}};
}

bool fromJSON(const json& j, CodeLensParams& out) {
    return get(j, "textDocument", out.textDocument);
}

bool fromJSON(const json& j, DidChangeConfigurationParams& out) {
    if (!j.is_object()) return false;
    if (auto it = j.find("settings"); it != j.end() && !it->is_null())
        out.settings = it->is_object() && it->contains("skein") ? (*it)["skein"] : *it;
    return true;
}

bool fromJSON(const json& j, StatisticsParams& out) {
    return get(j, "textDocument", out.textDocument);
}

bool fromJSON(const json& j, ExecuteCommandParams& out) {
    if (!get(j, "command", out.command)) return false;
    if (j.contains("arguments")) {
        if (!j["arguments"].is_array()) return false;
        out.arguments = j["arguments"];
    }
    return true;
}

json toJSON(const CodeLens& c) {
    json j = {{"range", toJSON(c.range)}};
    json cmd = {{"title", c.title}, {"command", c.command}};
    if (!c.arguments.empty()) cmd["arguments"] = c.arguments;
    j["command"] = std::move(cmd);
    return j;
}

json toJSON(const Hover& h) {
    json j = {{"contents", {{"kind", "markdown"}, {"value", h.markdown}}}};
    if (h.range) j["range"] = toJSON(*h.range);
    return j;
}

json serverCapabilities() {
    return {
        {"positionEncoding", "utf-16"},
        {"textDocumentSync",
         {{"openClose", true},
          {"change", 2 /* incremental; full replacements are accepted too */},
          {"save", {{"includeText", true}}}}},
        {"codeLensProvider", {{"resolveProvider", false}}},
        {"hoverProvider", true},
        {"executeCommandProvider",
         {{"commands", {Command::Recheck, Command::Cancel, Command::SetAlgorithm, Command::ShowTrace}}}},
        {"experimental",
         {{"skein",
           {{"statusNotification", "skein/status"},
            {"counterexampleRequest", "skein/counterexample"},
            {"statisticsRequest", "skein/statistics"}}}}},
    };
}

} // namespace skein::lsp
