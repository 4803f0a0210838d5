#include "core/program/Program.h"

#include <cstring>

namespace skein::program {

const char* builtinName(Builtin b) {
    switch (b) {
#define SKEIN_BUILTIN(Enum, Name)                                                                            \
    case Builtin::Enum:                                                                                      \
        return Name;
#include "core/program/Builtins.def"
    }
    return "?";
}

const char* callName(const Instr& in) {
    const auto b = Builtin(in.aux);
    const bool c11 = in.imm & kC11Call, timed = in.imm & kTimedCall;
    switch (b) {
    case Builtin::MutexLock: return c11 ? "mtx_lock" : builtinName(b);
    case Builtin::MutexTrylock:
        return c11 ? (timed ? "mtx_timedlock" : "mtx_trylock") : timed ? "pthread_mutex_timedlock" : builtinName(b);
    case Builtin::MutexUnlock: return c11 ? "mtx_unlock" : builtinName(b);
    case Builtin::MutexDestroy: return c11 ? "mtx_destroy" : builtinName(b);
    case Builtin::CondWait:
        return c11 ? (timed ? "cnd_timedwait" : "cnd_wait") : timed ? "pthread_cond_timedwait" : builtinName(b);
    case Builtin::CondSignal: return c11 ? "cnd_signal" : builtinName(b);
    case Builtin::CondBroadcast: return c11 ? "cnd_broadcast" : builtinName(b);
    case Builtin::CondDestroy: return c11 ? "cnd_destroy" : builtinName(b);
    case Builtin::CondInit: return c11 ? "cnd_init" : builtinName(b);
    case Builtin::SemTryWait: return timed ? "sem_timedwait" : builtinName(b);
    case Builtin::RwTryRdLock: return timed ? "pthread_rwlock_timedrdlock" : builtinName(b);
    case Builtin::RwTryWrLock: return timed ? "pthread_rwlock_timedwrlock" : builtinName(b);
    default: return builtinName(b);
    }
}

report::SourceLocation Program::sourceLocation(uint32_t loc) const {
    report::SourceLocation r;
    sourceLocationInto(loc, r);
    return r;
}

void Program::sourceLocationInto(uint32_t loc, report::SourceLocation& out) const {
    out.file.clear();
    out.function.clear();
    out.line = out.column = 0;
    if (loc >= locations.size()) return;
    const Location& l = locations[loc];
    if (l.file < files.size()) out.file = files[l.file];
    out.line = l.line;
    out.column = l.column;
    if (l.function < functions.size()) out.function = functions[l.function].name;
}

namespace {
// FNV-1a, 64-bit: the fingerprint only has to separate programs, not resist an adversary.
struct Hasher {
    uint64_t h = 1469598103934665603ull;
    void bytes(const void* p, size_t n) {
        auto* c = static_cast<const unsigned char*>(p);
        for (size_t i = 0; i < n; ++i) h = (h ^ c[i]) * 1099511628211ull;
    }
    template <class T> void pod(const T& v) { bytes(&v, sizeof v); }
    void str(const std::string& s) {
        pod(s.size());
        bytes(s.data(), s.size());
    }
};
} // namespace

uint64_t computeFingerprint(const Program& p) {
    Hasher h;
    h.pod(p.functions.size());
    for (const Function& f : p.functions) {
        h.str(f.name);
        h.pod(f.defined);
        h.pod(f.numParams);
        h.pod(f.numRegs);
        h.pod(f.numLoops);
        for (const Instr& i : f.code) {
            h.pod(i.op);
            h.pod(i.bits);
            h.pod(i.aux);
            h.pod(i.flags);
            h.pod(i.dst);
            h.pod(i.a);
            h.pod(i.b);
            h.pod(i.c);
            h.pod(i.imm);
        }
        for (auto& [r, v] : f.constants) {
            h.pod(r);
            h.pod(v);
        }
        for (Reg r : f.regPool) h.pod(r);
        for (const GepIndex& g : f.gepPool) {
            h.pod(g.reg);
            h.pod(g.bits);
            h.pod(g.scale);
        }
        for (uint64_t v : f.pool64) h.pod(v);
    }
    for (const Global& g : p.globals) {
        h.str(g.name);
        h.pod(g.size);
        h.pod(g.readOnly);
        h.pod(g.threadLocal);
        h.bytes(g.init.data(), g.init.size());
    }
    for (const AllocaInfo& a : p.allocas) {
        h.str(a.name);
        h.pod(a.escapes);
    }
    // Messages hold assertion texts and unsupported-construct descriptions; they carry no positions.
    for (const std::string& m : p.messages) h.str(m);
    h.pod(p.mainFunction);
    return h.h;
}

} // namespace skein::program
