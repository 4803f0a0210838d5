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
#include "core/program/Format.h"

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

// A va_list's arguments (the list is Skein's, LowerCall.cpp, lowerVaStart): every argument in the area
// overflow_arg_area points into, an 8-byte slot each, taken in order as formatPrintf takes the pool's — at most 64.
// `area` and `at` name the area's object (null when the pointer names none) and where in it the next argument is.
bool Executor::vaListArguments(ThreadId t, uint64_t list, VaArguments& out) {
    const uint8_t* fields = checkedBytes(t, list, 24, false);
    if (!fields) return false;
    uint64_t area;
    std::memcpy(&area, fields + 8, 8);
    out.area = memory_.object(program::pointerObject(area));
    out.at = program::pointerOffset(area);
    out.given = 0;
    if (out.area && out.at <= out.area->size) {
        out.given = uint32_t(std::min<uint64_t>((out.area->size - out.at) / 8, 64));
        if (out.given) {
            const uint8_t* slots = checkedBytes(t, area, uint64_t(out.given) * 8, false);
            if (!slots) return false;
            std::memcpy(out.args, slots, size_t(out.given) * 8);
        }
    }
    return true;
}

// How many bytes printf's "%.Ns" reads of a string of `length` characters before its NUL (or before the end of its
// object): up to the NUL, or `precision` characters (an int: a negative one is none).
uint64_t Executor::precisionRead(size_t length, uint64_t precision) {
    const int32_t p = int32_t(uint32_t(precision));
    return p < 0 ? length + 1 : std::min<uint64_t>(length + 1, uint64_t(p));
}

// What a string read with a precision reads: -1 the whole string, 0 nothing, else at most that many characters.
// __skein_read_string_n's precision is its second argument; __skein_read_format_arg's follows from the format it is
// given: nothing when the argument is no %s string there, a `.*` precision is the argument before it.
int64_t Executor::readPrecision(const Instr& in, const uint64_t* R, const program::Function& fn) {
    auto A = [&](uint32_t k) -> uint64_t { return k < in.c ? R[fn.regPool[in.b + k]] : 0; };
    auto precision = [](int32_t p) -> int64_t { return p < 0 ? -1 : p; };
    if (Builtin(in.aux) == Builtin::ReadStringN) return precision(int32_t(uint32_t(A(1))));
    for (const program::StringConversion& c : program::scanFormat(readCString(A(2)) /* format */).strings)
        if (c.arg == A(3)) return c.precisionArg >= 0 ? precision(int32_t(uint32_t(A(1)))) : c.precision;
    return 0;
}

// __skein_format_string(fmt, list, k, sOut, precisionOut): the k-th %s conversion of fmt among the list's arguments
// (program::scanFormat), for the C models to read its string by an event (libc.c, readStrings). 0 when fmt has no
// k-th, or when the list lacks its arguments: the formatting itself then reports the read past the last one.
bool Executor::formatString(ThreadId t, uint64_t fmt, uint64_t list, uint64_t k, uint64_t sOut, uint64_t precisionOut,
                            uint64_t& found) {
    found = 0;
    VaArguments va;
    if (!vaListArguments(t, list, va)) return false;
    const program::FormatScan scan = program::scanFormat(readCString(fmt));
    if (k >= scan.strings.size()) return true;
    const program::StringConversion& c = scan.strings[k];
    if (c.arg >= va.given || (c.precisionArg >= 0 && uint32_t(c.precisionArg) >= va.given)) return true;
    const uint64_t str = va.args[c.arg];
    const int32_t precision = c.precisionArg >= 0 ? int32_t(uint32_t(va.args[c.precisionArg])) : c.precision;
    uint8_t* s = checkedBytes(t, sOut, 8, true);
    if (!s) return false;
    std::memcpy(s, &str, 8);
    uint8_t* p = checkedBytes(t, precisionOut, 4, true);
    if (!p) return false;
    std::memcpy(p, &precision, 4);
    found = 1;
    return true;
}

// __skein_vformat(tmp, tmpSize, n, fmt, list): the list's arguments formatted (vaListArguments). At most
// min(n, tmpSize) - 1 characters and a NUL go into tmp, the models' private buffer.
bool Executor::vformat(ThreadId t, uint64_t tmp, uint64_t tmpSize, uint64_t n, uint64_t fmt, uint64_t list,
                       uint64_t& length) {
    VaArguments va;
    if (!vaListArguments(t, list, va)) return false;
    const Object* o = va.area;
    const uint64_t at = va.at;
    const uint64_t* args = va.args;
    const uint32_t given = va.given;
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
    case Builtin::ReadStringN:
    case Builtin::ReadFormatArg: {
        ev.kind = EventKind::Read;
        ev.addr = dst;
        const int64_t p = readPrecision(in, R, fn);
        ev.size = p == 0 ? 0 : uint32_t(precisionRead(readCString(dst).size(), uint32_t(p)));
        break;
    }
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
