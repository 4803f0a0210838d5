#pragma once
// Every message `skein lsp` sends or receives, as plain structs with toJSON/fromJSON next to them — the ONE
// typed header of the protocol (docs/protocol.md documents each message with an example). Standard LSP 3.17
// types carry only the fields Skein uses; Skein's extensions are marked "EXTENSION".
//
// fromJSON functions return false (and leave `out` partly filled) when a required field is missing or has the
// wrong type; they never throw. toJSON functions omit optional fields that are empty.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/report/Result.h"

namespace skein::lsp {

using json = nlohmann::json;

// ---- JSON-RPC 2.0 ----------------------------------------------------------------------------------------

namespace ErrorCode {
inline constexpr int ParseError = -32700;
inline constexpr int InvalidRequest = -32600;
inline constexpr int MethodNotFound = -32601;
inline constexpr int InvalidParams = -32602;
inline constexpr int InternalError = -32603;
inline constexpr int ServerNotInitialized = -32002;
inline constexpr int RequestCancelled = -32800;
} // namespace ErrorCode

struct ResponseError {
    int code = ErrorCode::InternalError;
    std::string message;
};

// ---- basic structures (0-based lines, UTF-16 columns)
// ------------------------------------------------------

struct Position {
    uint32_t line = 0;
    uint32_t character = 0;
    auto operator<=>(const Position&) const = default;
};
json toJSON(const Position& p);
bool fromJSON(const json& j, Position& out);

struct Range {
    Position start, end;
};
json toJSON(const Range& r);
bool fromJSON(const json& j, Range& out);

struct Location {
    std::string uri;
    Range range;
};
json toJSON(const Location& l);

struct TextDocumentItem {
    std::string uri;
    std::string languageId;
    int64_t version = 0;
    std::string text;
};
bool fromJSON(const json& j, TextDocumentItem& out);

struct TextDocumentIdentifier {
    std::string uri;
};
bool fromJSON(const json& j, TextDocumentIdentifier& out);

struct VersionedTextDocumentIdentifier {
    std::string uri;
    int64_t version = 0;
};
bool fromJSON(const json& j, VersionedTextDocumentIdentifier& out);

// Full sync when `range` is absent; incremental otherwise.
struct TextDocumentContentChangeEvent {
    std::optional<Range> range;
    std::string text;
};
bool fromJSON(const json& j, TextDocumentContentChangeEvent& out);

struct DidOpenTextDocumentParams {
    TextDocumentItem textDocument;
};
bool fromJSON(const json& j, DidOpenTextDocumentParams& out);

struct DidChangeTextDocumentParams {
    VersionedTextDocumentIdentifier textDocument;
    std::vector<TextDocumentContentChangeEvent> contentChanges;
};
bool fromJSON(const json& j, DidChangeTextDocumentParams& out);

struct DidSaveTextDocumentParams {
    TextDocumentIdentifier textDocument;
    std::optional<std::string> text;
};
bool fromJSON(const json& j, DidSaveTextDocumentParams& out);

struct DidCloseTextDocumentParams {
    TextDocumentIdentifier textDocument;
};
bool fromJSON(const json& j, DidCloseTextDocumentParams& out);

struct TextDocumentPositionParams {
    TextDocumentIdentifier textDocument;
    Position position;
};
bool fromJSON(const json& j, TextDocumentPositionParams& out);

// ---- lifecycle and window messages
// ----------------------------------------------------------------------------

// What the server reads of `initialize`'s params.
struct InitializeParams {
    bool workDoneProgress = false; // capabilities.window.workDoneProgress
    bool configuration = false;    // capabilities.workspace.configuration
    bool watchFiles = false;       // capabilities.workspace.didChangeWatchedFiles.dynamicRegistration
    std::optional<json> initializationOptions; // a settings object, or {"skein": settings}
};
bool fromJSON(const json& j, InitializeParams& out);
// The `initialize` result: serverCapabilities() and serverInfo.
json initializeResult();

// window/showMessage and window/logMessage.
enum class MessageType { Error = 1, Warning = 2, Info = 3, Log = 4 };
struct ShowMessageParams {
    MessageType type = MessageType::Error;
    std::string message;
};
json toJSON(const ShowMessageParams& p);

// workspace/configuration (server → client) for the section "skein".
struct ConfigurationParams {
    std::string section = "skein";
};
json toJSON(const ConfigurationParams& p);

// client/registerCapability (server → client) for workspace/didChangeWatchedFiles on C sources and headers,
// so that editing an included header rechecks the open documents.
struct WatchFilesRegistration {
    std::vector<std::string> globs = {"**/*.h", "**/*.c"};
};
json toJSON(const WatchFilesRegistration& r);

// window/workDoneProgress/create (server → client).
struct WorkDoneProgressCreateParams {
    std::string token;
};
json toJSON(const WorkDoneProgressCreateParams& p);
// window/workDoneProgress/cancel (client → server).
struct WorkDoneProgressCancelParams {
    std::string token;
};
bool fromJSON(const json& j, WorkDoneProgressCancelParams& out);

// ---- settings (workspace/didChangeConfiguration, workspace/configuration section "skein",
// initializationOptions)

// EXTENSION (the settings object). Every field has its default here; a settings object may give any subset.
struct Settings {
    std::string algorithm = "qpor"; // qpor | dfs (and any other registered explorer)
    std::string alt = "optimal";    // qpor's alternatives: sdpor, k1, k2, ..., optimal
    uint32_t unroll = 0;            // loop bound (0 = unbounded)
    uint64_t maxSteps = 5'000'000;  // interpreted instructions per thread per execution
    uint32_t maxEvents = 10'000;    // visible events per thread per execution
    uint32_t maxThreads = 64;
    uint64_t maxExecutions = 0;   // 0 = no limit (result then bounded)
    double timeLimitSeconds = 60; // per exploration; 0 = none
    std::vector<int64_t> nondet = {0, 1};
    uint32_t maxErrors = 32;
    bool detectRaces = true;
    // Error kinds published as diagnostics (wire names of report::ErrorKind: assertion, data_race, deadlock,
    // memory, arithmetic, pthread_misuse, stack_overflow, unsupported). Empty = all.
    std::vector<std::string> reportKinds;
    uint32_t debounceMs = 300;
    uint32_t maxConcurrentExplorations = 2;
    std::vector<std::string> clangFlags;
    bool replayFirst = true; // replay the previous counterexamples' schedules before exploring
};
json toJSON(const Settings& s);
// Applies the fields present in `j` over `out`. Unknown fields are ignored; a field of the wrong type is an
// error.
bool applySettings(const json& j, Settings& out, std::string& error);

// ---- diagnostics
// ---------------------------------------------------------------------------------------------

struct DiagnosticRelatedInformation {
    Location location;
    std::string message;
};

enum class DiagnosticSeverity { Error = 1, Warning = 2, Information = 3, Hint = 4 };

struct Diagnostic {
    Range range;
    DiagnosticSeverity severity = DiagnosticSeverity::Error;
    std::string code; // error kind wire name ("data_race"), or "compile"
    std::string source = "skein";
    std::string message;
    std::vector<DiagnosticRelatedInformation> relatedInformation;
    // EXTENSION: {"counterexample": id, "kind": ..., "replayed": bool}; absent for compile errors.
    std::optional<json> data;
};
json toJSON(const Diagnostic& d);

struct PublishDiagnosticsParams {
    std::string uri;
    std::optional<int64_t> version;
    std::vector<Diagnostic> diagnostics;
};
json toJSON(const PublishDiagnosticsParams& p);

// ---- work-done progress ($/progress)
// ---------------------------------------------------------------------------

struct WorkDoneProgress {
    enum class Kind { Begin, Report, End } kind = Kind::Report;
    std::string title; // begin only
    std::string message;
    std::optional<uint32_t> percentage;
    bool cancellable = false; // begin only
};
json toJSON(const WorkDoneProgress& p);
struct ProgressParams {
    std::string token;
    WorkDoneProgress value;
};
json toJSON(const ProgressParams& p);

// ---- EXTENSION: skein/status (notification, server → client)
// ---------------------------------------------------

enum class DocumentState { Queued, Compiling, Replaying, Exploring, Done, Cancelled, Failed };
std::string_view documentStateName(DocumentState s);

struct StatusParams {
    std::string uri;
    int64_t version = 0;
    DocumentState state = DocumentState::Queued;
    std::optional<std::string> verdict; // done: safe | error | bounded
    std::optional<report::Stats> stats;
    uint32_t errors = 0;
    // done: true when the result came from an earlier identical program (comment/format edit, undo) without
    // exploring; `reusedFrom` is that result's version.
    bool reused = false;
    std::optional<int64_t> reusedFrom;
    std::string algorithm;
    std::string message; // human-readable: why it failed, what was bounded, what the replay found
    std::optional<std::string> fingerprint; // hex, once compiled
};
json toJSON(const StatusParams& p);

// ---- EXTENSION: skein/counterexample (request)
// ----------------------------------------------------------------

struct CounterexampleParams {
    TextDocumentIdentifier textDocument;
    std::string id; // Diagnostic.data.counterexample
};
bool fromJSON(const json& j, CounterexampleParams& out);
struct CounterexampleResult {
    std::string uri;
    int64_t version = 0;
    std::string id;
    report::ErrorReport error; // on the wire: the --json error object (trace, graph, schedule, ...)
};
json toJSON(const CounterexampleResult& r);

struct CodeLensParams {
    TextDocumentIdentifier textDocument;
};
bool fromJSON(const json& j, CodeLensParams& out);

// workspace/didChangeConfiguration: the new settings ({"skein": {...}} or the object itself), or none when
// the client wants them pulled with workspace/configuration.
struct DidChangeConfigurationParams {
    std::optional<json> settings;
};
bool fromJSON(const json& j, DidChangeConfigurationParams& out);

// ---- EXTENSION: skein/statistics (request)
// ---------------------------------------------------------------------

struct StatisticsParams {
    TextDocumentIdentifier textDocument;
};
bool fromJSON(const json& j, StatisticsParams& out);
// Result: a StatusParams object for the document's latest state.

// ---- EXTENSION: workspace/executeCommand commands
// -------------------------------------------------------------

namespace Command {
inline constexpr const char* Recheck = "skein.recheck";           // [uri]
inline constexpr const char* Cancel = "skein.cancel";             // [uri]
inline constexpr const char* SetAlgorithm = "skein.setAlgorithm"; // [uri, algorithm, alt?]
inline constexpr const char* ShowTrace =
    "skein.showTrace"; // [uri, id]: the client's; the server answers
                       // with the counterexample (as skein/counterexample)
} // namespace Command

struct ExecuteCommandParams {
    std::string command;
    json arguments = json::array();
};
bool fromJSON(const json& j, ExecuteCommandParams& out);

// ---- code lens and hover
// ---------------------------------------------------------------------------------------

struct CodeLens {
    Range range;
    std::string title;
    std::string command; // empty: informational lens
    json arguments = json::array();
};
json toJSON(const CodeLens& c);

struct Hover {
    std::string markdown;
    std::optional<Range> range;
};
json toJSON(const Hover& h);

// The capabilities `initialize` answers with (only what the server implements).
json serverCapabilities();

} // namespace skein::lsp
