#include "core/exec/Memory.h"

#include <cstring>

namespace skein::exec {

using program::pointerObject;
using program::pointerOffset;

Memory::Memory(const program::Program& p) : program_(p) {
    fixed_.resize(1 + p.globals.size() + p.functions.size());
    fixed_[0].alive = false;
    // The image in one allocation, with room for the first objects an execution allocates (main's locals): grown
    // global by global, it was reallocated several times per executor built — once per exploration for qpor, where
    // building the executor is a tenth of a dozen-event exploration (bench/README.md, thirty-fifth session).
    size_t imageSize = 0;
    for (const program::Global& gl : p.globals) imageSize = ((imageSize + 15) & ~size_t(15)) + gl.init.size();
    arena_.reserve(imageSize + kRoomForLocals);
    for (size_t g = 0; g < p.globals.size(); ++g) {
        const program::Global& gl = p.globals[g];
        Object& o = fixed_[p.globalObject(uint32_t(g))];
        arena_.resize((arena_.size() + 15) & ~size_t(15));
        o.base = arena_.size();
        o.size = uint32_t(gl.size);
        o.kind = gl.threadLocal ? ObjectKind::ThreadLocal : ObjectKind::Global;
        o.readOnly = gl.readOnly;
        // Constants are never written, so reading them cannot interfere: not events.
        o.shared = !gl.readOnly && !gl.threadLocal;
        o.info = uint32_t(g);
        arena_.insert(arena_.end(), gl.init.begin(), gl.init.end());
    }
    for (size_t f = 0; f < p.functions.size(); ++f) {
        Object& o = fixed_[p.functionObject(uint32_t(f))];
        o.kind = ObjectKind::Function;
        o.size = 0;
        o.shared = false;
        o.info = uint32_t(f);
    }
    initialImage_ = arena_;
}

void Memory::reset() {
    arena_.assign(initialImage_.begin(), initialImage_.end());
    for (auto& v : perThread_) v.clear();
}

void Memory::copyStateFrom(const Memory& o) {
    arena_.assign(o.arena_.begin(), o.arena_.end());
    fixed_.assign(o.fixed_.begin(), o.fixed_.end());
    perThread_.resize(o.perThread_.size());
    for (size_t t = 0; t < o.perThread_.size(); ++t) perThread_[t].assign(o.perThread_[t].begin(), o.perThread_[t].end());
}

uint64_t Memory::allocate(uint32_t thread, uint32_t size, ObjectKind kind, bool shared, uint32_t info) {
    if (perThread_.size() <= thread) perThread_.resize(thread + 1);
    auto& list = perThread_[thread];
    Object o;
    arena_.resize((arena_.size() + 15) & ~size_t(15));
    o.base = arena_.size();
    o.size = size;
    o.kind = kind;
    o.shared = shared;
    o.info = info;
    o.thread = thread;
    arena_.resize(arena_.size() + size, 0);
    uint32_t id = ((thread + 1) << 20) | uint32_t(list.size());
    list.push_back(o);
    return program::makePointer(id, 0);
}

Object* Memory::object(uint32_t id) {
    if (id < (1u << 20)) return id < fixed_.size() ? &fixed_[id] : nullptr;
    uint32_t t = (id >> 20) - 1, k = id & 0xFFFFF;
    if (t >= perThread_.size() || k >= perThread_[t].size()) return nullptr;
    return &perThread_[t][k];
}
const Object* Memory::object(uint32_t id) const { return const_cast<Memory*>(this)->object(id); }

size_t Memory::objectsAllocated() const {
    size_t n = 0;
    for (auto& v : perThread_) n += v.size();
    return n;
}

AccessError Memory::check(uint64_t ptr, uint64_t size, bool write, uint8_t** out) {
    uint32_t id = pointerObject(ptr);
    if (id == 0) return AccessError::Null;
    Object* o = object(id);
    if (!o) return AccessError::Invalid;
    if (o->kind == ObjectKind::Function) return AccessError::Function;
    if (!o->alive) return o->kind == ObjectKind::Stack ? AccessError::Dangling : AccessError::Freed;
    uint64_t off = pointerOffset(ptr);
    if (off + size > o->size) return AccessError::OutOfBounds;
    if (write && o->readOnly) return AccessError::ReadOnly;
    *out = arena_.data() + o->base + off;
    return AccessError::None;
}

const char* accessErrorText(AccessError e) {
    switch (e) {
    case AccessError::None: return "ok";
    case AccessError::Null: return "null pointer dereference";
    case AccessError::Invalid: return "access through an invalid pointer";
    case AccessError::Function: return "access to a function's address as data";
    case AccessError::Freed: return "use after free";
    case AccessError::Dangling: return "access to a stack object after its function returned";
    case AccessError::OutOfBounds: return "out-of-bounds access";
    case AccessError::ReadOnly: return "write to read-only memory";
    }
    return "?";
}

std::string Memory::describe(uint64_t ptr) const {
    uint32_t elem = 0;
    std::string name = objectName(pointerObject(ptr), &elem);
    const Object* o = pointerObject(ptr) ? object(pointerObject(ptr)) : nullptr;
    if (!o || o->kind == ObjectKind::Function) return name;
    uint32_t off = pointerOffset(ptr);
    if (off == 0 && !elem) return name;
    // Appended to `name` in place: describing addresses is much of building a counterexample.
    if (elem && off % elem == 0) {
        name += '[';
        name += std::to_string(off / elem);
        name += ']';
    } else {
        name += '+';
        name += std::to_string(off);
    }
    return name;
}

std::string Memory::objectName(uint32_t id, uint32_t* elemSize) const {
    const Object* o = id ? object(id) : nullptr;
    if (!o) return {};
    std::string name;
    uint32_t elem = 0;
    switch (o->kind) {
    case ObjectKind::Global:
    case ObjectKind::ThreadLocal:
        name = program_.globals[o->info].name;
        elem = program_.globals[o->info].elemSize;
        break;
    case ObjectKind::Stack:
        name = program_.allocas[o->info].name;
        elem = program_.allocas[o->info].elemSize;
        break;
    case ObjectKind::Heap: {
        name = "heap@";
        name += std::to_string(program_.sourceLine(o->info));
        name += '#';
        name += std::to_string(id & 0xFFFFF);
        break;
    }
    case ObjectKind::Function: name = program_.functions[o->info].name; break;
    case ObjectKind::Argv: name = "argv"; break;
    case ObjectKind::Errno: name = "errno"; break;
    }
    if (elemSize) *elemSize = elem;
    return name;
}

uint64_t Memory::hashShared() const {
    uint64_t h = 1469598103934665603ull;
    auto mix = [&](const uint8_t* p, size_t n) {
        for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
    };
    for (const Object& o : fixed_)
        if (o.kind == ObjectKind::Global && !o.readOnly) mix(arena_.data() + o.base, o.size);
    for (const auto& list : perThread_)
        for (const Object& o : list)
            if (o.kind == ObjectKind::Heap && o.alive) mix(arena_.data() + o.base, o.size);
    return h;
}

} // namespace skein::exec
