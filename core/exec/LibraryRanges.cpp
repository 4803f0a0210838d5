// Helpers of the library models (Builtins.cpp): C strings read from the interpreted memory, printf formatted with
// the program's arguments or a va_list's (the C models' __skein_vformat), the C models' number conversion, and the
// ranges a memory builtin (memcpy ... strlen) touches in the current state.
#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdlib>
#include <cinttypes>
#include <cstring>

#include "core/exec/ExecutorImpl.h"

namespace skein::exec {

using model::EventKind;
using program::Builtin;
using program::Instr;

// The string at ptr: up to its NUL, or to the end of its object when it has none there (the caller's range check
// then reports the read past the end). Uncapped: a cap of 4,096 bytes made strlen of a longer string return 4,096
// and strcpy copy only that much — a wrong value with no error, and a verdict built on it.
std::string Executor::readCString(uint64_t ptr) {
    uint8_t* b;
    if (memory_.check(ptr, 1, false, &b) != AccessError::None) return {};
    const Object* o = memory_.object(program::pointerObject(ptr));
    const size_t left = o->size - program::pointerOffset(ptr); // ≥ 1: the check passed
    const auto* nul = static_cast<const uint8_t*>(std::memchr(b, 0, left));
    return std::string(reinterpret_cast<const char*>(b), nul ? size_t(nul - b) : left);
}

// printf with the interpreted program's arguments. Each conversion is formatted by the host's snprintf with a
// value of the right C type; %n is refused (it would write memory).
std::string Executor::formatPrintf(ThreadId t, uint64_t fmtPtr, const uint64_t* args, uint32_t nargs,
                                   uint32_t* wanted) {
    std::string fmt = readCString(fmtPtr), out;
    uint32_t next = 0;
    auto arg = [&]() -> uint64_t {
        const uint32_t k = next++;
        return k < nargs ? args[k] : 0;
    };
    // One conversion, of any length (a %s of a long string, a wide field): the host's snprintf measures it first.
    auto put = [&](const std::string& spec, auto value) {
        const int n = std::snprintf(nullptr, 0, spec.c_str(), value);
        if (n <= 0) return;
        const size_t at = out.size();
        out.resize(at + size_t(n) + 1);
        std::snprintf(out.data() + at, size_t(n) + 1, spec.c_str(), value);
        out.resize(at + size_t(n));
    };
    for (size_t i = 0; i < fmt.size(); ++i) {
        if (fmt[i] != '%') {
            out.push_back(fmt[i]);
            continue;
        }
        size_t j = i + 1;
        std::string spec = "%";
        while (j < fmt.size() && std::strchr("-+ #0123456789.*", fmt[j])) {
            if (fmt[j] == '*') spec += std::to_string(int(arg()));
            else spec.push_back(fmt[j]);
            ++j;
        }
        std::string len;
        while (j < fmt.size() && std::strchr("hlLqjzt", fmt[j])) len.push_back(fmt[j++]);
        if (j >= fmt.size()) break;
        char conv = fmt[j];
        switch (conv) {
        case '%': out.push_back('%'); break;
        case 'd':
        case 'i': {
            int64_t v = len.empty() ? int64_t(int32_t(arg())) : len == "h" ? int64_t(int16_t(arg())) : len == "hh" ? int64_t(int8_t(arg())) : int64_t(arg());
            put(spec + PRId64, v);
            break;
        }
        case 'u':
        case 'x':
        case 'X':
        case 'o': {
            uint64_t v = len.empty() ? uint64_t(uint32_t(arg())) : len == "h" ? uint64_t(uint16_t(arg())) : len == "hh" ? uint64_t(uint8_t(arg())) : arg();
            const char* f = conv == 'u' ? PRIu64 : conv == 'x' ? PRIx64 : conv == 'X' ? PRIX64 : PRIo64;
            put(spec + f, v);
            break;
        }
        case 'c': put(spec + "c", int(arg())); break;
        case 'p': put("0x%" PRIx64, arg()); break;
        case 's': {
            uint64_t p = arg();
            std::string s = p ? readCString(p) : "(null)"; // as glibc prints it
            put(spec + "s", s.c_str());
            break;
        }
        case 'f':
        case 'F':
        case 'e':
        case 'E':
        case 'g':
        case 'G':
        case 'a':
        case 'A': put(spec + conv, std::bit_cast<double>(arg())); break;
        default: out += '%', out += conv; break; // %n and unknown: printed, not performed
        }
        i = j;
    }
    if (wanted) *wanted = next;
    return out;
}

// __skein_vformat(tmp, tmpSize, n, fmt, list): the va_list is Skein's (LowerCall.cpp, lowerVaStart) — every argument
// in the area overflow_arg_area points into, an 8-byte slot each, taken in order as formatPrintf takes the pool's.
// At most min(n, tmpSize) - 1 characters and a NUL go into tmp, the models' private buffer.
bool Executor::vformat(ThreadId t, uint64_t tmp, uint64_t tmpSize, uint64_t n, uint64_t fmt, uint64_t list,
                       uint64_t& length) {
    const uint8_t* fields = checkedBytes(t, list, 24, false);
    if (!fields) return false;
    uint64_t area;
    std::memcpy(&area, fields + 8, 8);
    const Object* o = memory_.object(program::pointerObject(area));
    const uint64_t at = program::pointerOffset(area);
    uint64_t args[64];
    uint32_t given = 0;
    if (o && at <= o->size) {
        given = uint32_t(std::min<uint64_t>((o->size - at) / 8, 64));
        if (given) {
            const uint8_t* slots = checkedBytes(t, area, uint64_t(given) * 8, false);
            if (!slots) return false;
            std::memcpy(args, slots, size_t(given) * 8);
        }
    }
    uint32_t wanted = 0;
    const std::string s = formatPrintf(t, fmt, args, given, &wanted);
    if (wanted > given && (!o || at + uint64_t(wanted) * 8 > o->size)) {
        // As a va_arg past the last argument (LowerCall.cpp: the area holds exactly the arguments passed).
        fail(t, report::ErrorKind::Memory,
             "the format reads " + std::to_string(wanted) + " arguments where " + std::to_string(given) +
                 " were passed: out of bounds of `<variadic arguments>`");
        return false;
    }
    if (n > tmpSize && s.size() >= tmpSize) {
        unsupported(t, "formatted output of " + std::to_string(s.size()) + " characters (the models' buffer holds " +
                           std::to_string(tmpSize ? tmpSize - 1 : 0) + ")");
        return false;
    }
    if (tmpSize) {
        const uint64_t keep = std::min<uint64_t>({s.size(), n ? n - 1 : 0, tmpSize - 1});
        uint8_t* out = checkedBytes(t, tmp, keep + 1, true);
        if (!out) return false;
        std::memcpy(out, s.data(), keep);
        out[keep] = 0;
    }
    length = s.size();
    return true;
}

// __skein_strtod(copy, result, isFloat): the copy is the model's own (a local array: no event); its reads of the
// caller's string were events. result[0] the characters taken, result[1] whether the value was out of range.
bool Executor::parseDouble(ThreadId t, uint64_t copy, uint64_t result, bool isFloat, uint64_t& bits) {
    const std::string text = readCString(copy);
    uint8_t* out = checkedBytes(t, result, 8, true);
    if (!out) return false;
    char* end = nullptr;
    errno = 0;
    const double v = isFloat ? double(std::strtof(text.c_str(), &end)) : std::strtod(text.c_str(), &end);
    const int32_t took = int32_t(end - text.c_str()), range = errno == ERANGE;
    std::memcpy(out, &took, 4);
    std::memcpy(out + 4, &range, 4);
    bits = std::bit_cast<uint64_t>(v);
    return true;
}

// The ranges of a memory builtin's event (memcpy ... memcmp) in the current state: a string function's stop at a
// NUL, so they are recomputed when memory changes (refreshRanges) and `span`/`span2` give the objects they may
// reach (model::Event::readFootprint).
void Executor::accessRanges(const Instr& in, const uint64_t* R, const program::Function& fn, Event& ev) {
    auto A = [&](uint32_t k) -> uint64_t { return k < in.c ? R[fn.regPool[in.b + k]] : 0; };
    auto b = Builtin(in.aux);
    uint64_t dst = A(0), src = A(1);
    uint64_t n = 0;
    switch (b) {
    case Builtin::Memcpy:
    case Builtin::Memmove: n = A(2); ev.kind = EventKind::Copy; ev.addr = dst; ev.size = uint32_t(n); ev.addr2 = src; ev.size2 = uint32_t(n); break;
    case Builtin::Memset: n = A(2); ev.kind = EventKind::Write; ev.addr = dst; ev.size = uint32_t(n); ev.value = A(1) & 0xFF; break;
    case Builtin::Strcpy:
    case Builtin::Strncpy:
    case Builtin::Strcat: {
        uint64_t len = readCString(src).size() + 1;
        if (b == Builtin::Strncpy) len = A(2);
        uint64_t off = b == Builtin::Strcat ? readCString(dst).size() : 0;
        ev.kind = EventKind::Copy; ev.addr = dst + off; ev.size = uint32_t(len); ev.addr2 = src; ev.size2 = uint32_t(std::min(len, readCString(src).size() + 1));
        break;
    }
    case Builtin::Strlen:
    case Builtin::ReadString: ev.kind = EventKind::Read; ev.addr = dst; ev.size = uint32_t(readCString(dst).size() + 1); break;
    default: {
        uint64_t l1 = b == Builtin::Memcmp ? A(2) : readCString(dst).size() + 1;
        uint64_t l2 = b == Builtin::Memcmp ? A(2) : readCString(src).size() + 1;
        if (b == Builtin::Strncmp) { l1 = std::min(l1, A(2)); l2 = std::min(l2, A(2)); }
        ev.kind = EventKind::Read; ev.addr = dst; ev.size = uint32_t(l1); ev.addr2 = src; ev.size2 = uint32_t(l2);
        break;
    }
    }
    // A length past the rest of its object (a negative length passed as size_t, say) fails out of bounds when the
    // call runs; as a footprint it is cut to the rest of the object — cut to 32 bits it was arbitrary, and a length
    // of 100 MB or 4 GB had the explorers walk millions of words before the call failed.
    auto roomFrom = [&](uint64_t p) -> uint64_t {
        const Object* o = memory_.object(program::pointerObject(p));
        const uint64_t off = program::pointerOffset(p);
        return o && off < o->size ? o->size - off : 1;
    };
    const bool lengthArgument = b == Builtin::Memcpy || b == Builtin::Memmove || b == Builtin::Memset ||
                                b == Builtin::Memcmp || b == Builtin::Strncpy;
    if (lengthArgument) {
        ev.size = uint32_t(std::min(A(2), roomFrom(ev.addr)));
        if (b != Builtin::Memset && b != Builtin::Strncpy) // strncpy reads its string: size2 is already its length
            ev.size2 = uint32_t(std::min(A(2), roomFrom(ev.addr2)));
    }
    auto objectSize = [&](uint64_t p) -> uint32_t {
        const Object* o = memory_.object(program::pointerObject(p));
        return o ? std::max<uint32_t>(o->size, 1) : 1;
    };
    // The string functions (every builtin here but the mem* ones, whose sizes are arguments).
    if (b != Builtin::Memcpy && b != Builtin::Memmove && b != Builtin::Memset && b != Builtin::Memcmp) {
        ev.span = objectSize(ev.addr);
        if (ev.size2) ev.span2 = objectSize(ev.addr2);
    }
}

// A pending string function's ranges after memory changed (Executor::step): what it would touch now.
void Executor::refreshRanges(ThreadId t) {
    Thread& th = *threads_[t];
    Event& ev = views_[t].pending;
    if (!th.hasPending || !ev.span || th.frames.empty()) return;
    const Frame& fr = th.frames.back();
    const program::Function& fn = program_.functions[fr.func];
    Event now = ev;
    accessRanges(fn.code[fr.pc], th.regs.data() + fr.regBase, fn, now);
    ev.addr = now.addr;
    ev.size = now.size;
    ev.addr2 = now.addr2;
    ev.size2 = now.size2;
}

} // namespace skein::exec
