// Builtins of the heap and of byte ranges (Builtins.cpp has the rest): malloc, calloc, realloc and free, and the
// string and memory functions — memcpy, memmove, memset, strcpy, strncpy, strcat, strlen, strcmp, strncmp, memcmp —
// and the string reads of printf's %s (ReadString, ReadStringN, ReadFormatArg). An operation on a shared object is
// an event whose ranges are the objects' footprints (model::Event::readFootprint); on a thread's own memory it is
// performed at once.
#include <algorithm>
#include <cstring>

#include "core/exec/ExecutorImpl.h"

namespace skein::exec {

using model::EventKind;
using program::Builtin;
using program::Instr;

namespace {
// The largest heap allocation that succeeds (256 MB): past it malloc, calloc and realloc return NULL, as a real
// allocator may — the arena holds every object of an execution, and object sizes are 32-bit.
constexpr uint64_t kMaxAllocation = uint64_t(1) << 28;
} // namespace

bool Executor::callMemoryBuiltin(ThreadId t, const Instr& in) {
    const BuiltinSite site(*threads_[t], program_, in);
    Thread& th = site.th;
    auto A = [&](uint32_t k) { return site.arg(k); };
    auto done = [&](uint64_t v) { return site.done(v); };
    auto pending = [&](Event ev) {
        setPending(t, ev);
        return false;
    };
    // Is any byte of [p, p+n) in a shared object? (Then the access is a visible event.)
    auto sharedRange = [&](uint64_t p) {
        const Object* o = memory_.object(program::pointerObject(p));
        return o && o->shared;
    };
    const auto b = Builtin(in.aux);
    switch (b) {
    case Builtin::Malloc:
    case Builtin::Calloc: {
        uint64_t n = A(0);
        // Past kMaxAllocation (or a calloc whose product overflows) the allocation fails, as a real one may: NULL.
        if (b == Builtin::Calloc && __builtin_mul_overflow(A(0), A(1), &n)) return done(0);
        if (n > kMaxAllocation) return done(0);
        const bool shared = !(in.imm & program::kPrivateAllocation);
        return done(memory_.allocate(t, uint32_t(n), ObjectKind::Heap, shared, currentLoc(t)));
    }
    case Builtin::Realloc:
    case Builtin::Free: {
        uint64_t p = A(0);
        if (p == 0) {
            if (b == Builtin::Free) return done(0);
            if (A(1) > kMaxAllocation) return done(0);
            return done(memory_.allocate(t, uint32_t(A(1)), ObjectKind::Heap, true, currentLoc(t)));
        }
        // A realloc that cannot allocate returns NULL and leaves the object as it was: no event.
        if (b == Builtin::Realloc && A(1) > kMaxAllocation) return done(0);
        Object* o = memory_.object(program::pointerObject(p));
        if (!o || o->kind != ObjectKind::Heap || program::pointerOffset(p) != 0) {
            fail(t, report::ErrorKind::Memory,
                 "free of a pointer that was not returned by malloc" +
                     (memory_.describe(p).empty() ? std::string() : " (`" + memory_.describe(p) + "`)"));
            return false;
        }
        if (b == Builtin::Free && !o->shared) { // the thread's own object (kPrivateAllocation): no event
            if (!o->alive) {
                fail(t, report::ErrorKind::Memory, "double free of `" + memory_.describe(p) + "`");
                return false;
            }
            o->alive = false;
            return done(0);
        }
        Event ev;
        ev.kind = EventKind::Free;
        ev.addr = p;
        ev.size = o->size ? o->size : 1;
        ev.value2 = b == Builtin::Realloc; // realloc also copies the object (model/Event.h)
        return pending(ev);
    }
    case Builtin::Memcpy:
    case Builtin::Memmove:
    case Builtin::Memset:
    case Builtin::Strcpy:
    case Builtin::Strncpy:
    case Builtin::Strcat:
    case Builtin::Strlen:
    case Builtin::ReadString:
    case Builtin::ReadStringN:
    case Builtin::ReadFormatArg:
    case Builtin::Strcmp:
    case Builtin::Strncmp:
    case Builtin::Memcmp: {
        const bool readsString = b == Builtin::ReadString || b == Builtin::ReadStringN || b == Builtin::ReadFormatArg;
        if (readsString && A(0) == 0) return done(0);
        if ((b == Builtin::ReadStringN || b == Builtin::ReadFormatArg) && readPrecision(in, site.R, site.fn) == 0)
            return done(0); // "%.0s" reads nothing, nor does an argument that is no %s string
        bool visible = sharedRange(A(0)) || (b != Builtin::Memset && b != Builtin::Strlen && !readsString &&
                                             sharedRange(A(1)));
        if (!visible) {
            performMemoryBuiltin(t, in);
            return status_ != ExecStatus::Unsupported && !th.stopped;
        }
        // The event's ranges are computed now, in this state; a string function's again whenever memory changes
        // before it runs (refreshRanges), and the work is redone, with checks, when it runs.
        Event ev;
        accessRanges(in, site.R, site.fn, ev);
        ev.builtin = true;
        if (ev.size == 0 && ev.size2 == 0) {
            performMemoryBuiltin(t, in);
            return status_ != ExecStatus::Unsupported && !th.stopped;
        }
        return pending(ev);
    }
    default: unsupported(t, std::string("memory builtin ") + program::builtinName(b)); return false;
    }
}

// The visible part of a heap or range builtin (performBuiltin), or all of it on a thread's own memory.
void Executor::performMemoryBuiltin(ThreadId t, const Instr& in) {
    const BuiltinSite site(*threads_[t], program_, in);
    auto A = [&](uint32_t k) { return site.arg(k); };
    auto finish = [&](uint64_t v) { site.finish(v); };
    auto range = [&](uint64_t p, uint64_t n, bool write) { return n ? checkedBytes(t, p, n, write) : nullptr; };
    const auto b = Builtin(in.aux);
    switch (b) {
    case Builtin::Realloc:
    case Builtin::Free: {
        uint64_t p = A(0);
        Object* o = memory_.object(program::pointerObject(p));
        if (!o->alive) {
            fail(t, report::ErrorKind::Memory, "double free of `" + memory_.describe(p) + "`");
            return;
        }
        if (b == Builtin::Free) {
            o->alive = false;
            return finish(0);
        }
        uint64_t n = A(1);
        uint32_t oldSize = o->size;
        uint64_t np = memory_.allocate(t, uint32_t(n), ObjectKind::Heap, true, currentLoc(t));
        Object* oldObj = memory_.object(program::pointerObject(p)); // allocate may move the arena, not objects' ids
        Object* newObj = memory_.object(program::pointerObject(np));
        std::memcpy(memory_.raw(*newObj), memory_.raw(*oldObj), std::min<uint64_t>(n, oldSize));
        newObj->copied = true;
        oldObj->alive = false;
        return finish(np);
    }
    case Builtin::Memcpy:
    case Builtin::Memmove: {
        uint64_t n = A(2);
        if (n == 0) return finish(A(0));
        uint8_t* s = range(A(1), n, false);
        if (!s) return;
        std::vector<uint8_t> tmp(s, s + n);
        uint8_t* d = range(A(0), n, true);
        if (!d) return;
        // Equal pointers are allowed (llvm.memcpy: `a[i] = a[j]` with i == j); a partial overlap is not.
        if (b == Builtin::Memcpy && A(0) != A(1) && A(0) < A(1) + n && A(1) < A(0) + n) {
            fail(t, report::ErrorKind::Memory, "memcpy with overlapping source and destination");
            return;
        }
        std::memcpy(d, tmp.data(), n);
        return finish(A(0));
    }
    case Builtin::Memset: {
        uint64_t n = A(2);
        if (n == 0) return finish(A(0));
        uint8_t* d = range(A(0), n, true);
        if (!d) return;
        std::memset(d, int(A(1) & 0xFF), n);
        return finish(A(0));
    }
    case Builtin::Strcpy:
    case Builtin::Strncpy:
    case Builtin::Strcat: {
        std::string s = readCString(A(1));
        uint64_t off = b == Builtin::Strcat ? readCString(A(0)).size() : 0;
        // n bytes written: the string and its NUL, or (strncpy) exactly n — the string cut or padded with NULs. The
        // ranges are checked before anything is built: a strncpy of (size_t)-1 bytes once sized a buffer that large.
        const uint64_t n = b == Builtin::Strncpy ? A(2) : s.size() + 1;
        if (n == 0) return finish(A(0));
        if (!range(A(1), std::min<uint64_t>(s.size() + 1, n), false)) return;
        uint8_t* d = range(A(0) + off, n, true);
        if (!d) return;
        const size_t copied = size_t(std::min<uint64_t>(s.size(), n));
        std::memcpy(d, s.data(), copied);
        std::memset(d + copied, 0, size_t(n - copied));
        return finish(A(0));
    }
    case Builtin::Strlen:
    case Builtin::ReadString:
    case Builtin::ReadStringN:
    case Builtin::ReadFormatArg: {
        std::string s = readCString(A(0));
        const uint64_t n = b == Builtin::Strlen || b == Builtin::ReadString
                               ? s.size() + 1
                               : precisionRead(s.size(), uint32_t(readPrecision(in, site.R, site.fn)));
        if (!range(A(0), n, false)) return;
        return finish(std::min<uint64_t>(s.size(), n));
    }
    case Builtin::Strcmp:
    case Builtin::Strncmp:
    case Builtin::Memcmp: {
        if (b == Builtin::Memcmp) {
            uint64_t n = A(2);
            if (n == 0) return finish(0);
            uint8_t* x = range(A(0), n, false);
            if (!x) return;
            std::vector<uint8_t> xs(x, x + n);
            uint8_t* y = range(A(1), n, false);
            if (!y) return;
            return finish(uint64_t(int64_t(std::memcmp(xs.data(), y, n))));
        }
        std::string x = readCString(A(0)), y = readCString(A(1));
        if (!range(A(0), x.size() + 1, false) || !range(A(1), y.size() + 1, false)) return;
        int r = b == Builtin::Strcmp ? std::strcmp(x.c_str(), y.c_str()) : std::strncmp(x.c_str(), y.c_str(), A(2));
        return finish(uint64_t(int64_t(r < 0 ? -1 : r > 0 ? 1 : 0)));
    }
    default: unsupported(t, std::string("memory builtin ") + program::builtinName(b)); return;
    }
}

} // namespace skein::exec
