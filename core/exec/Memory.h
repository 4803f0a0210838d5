#pragma once
// The interpreted program's memory: objects, not a flat address space, so that every out-of-bounds, null,
// freed or dangling access is caught. A pointer is (object id << 32 | offset) (core/program/Program.h).
// Object ids: globals and functions have the fixed ids the lowering gave them; the k-th object a thread
// allocates gets ((thread + 1) << 20 | k), independent of how other threads were scheduled, so the same
// decisions always produce the same addresses (the determinism the explorers rely on).
#include <cstdint>
#include <string>
#include <vector>

#include "core/program/Program.h"

namespace skein::exec {

enum class ObjectKind : uint8_t { Global, Function, Heap, Stack, ThreadLocal, Argv, Errno };

struct Object {
    uint64_t base = 0; // offset into the arena
    uint32_t size = 0;
    ObjectKind kind = ObjectKind::Global;
    bool alive = true;
    bool shared = true;   // accesses to it are visible events
    bool readOnly = false;
    uint32_t info = 0;    // Global: global index; Stack: AllocaInfo index; Heap: allocation location
    uint32_t thread = 0;  // allocating thread
    bool copied = false;  // Heap: a realloc filled it from the old object (no event wrote those bytes)
};

enum class AccessError { None, Null, Invalid, Function, Freed, Dangling, OutOfBounds, ReadOnly };

class Memory {
public:
    explicit Memory(const program::Program& p);
    void reset(); // back to the initial image: globals only
    // Becomes a copy of `o` (a memory of the same program), reusing this one's buffers: no allocation once they
    // are large enough (the explorers' snapshots).
    void copyStateFrom(const Memory& o);

    uint64_t allocate(uint32_t thread, uint32_t size, ObjectKind kind, bool shared, uint32_t info);
    Object* object(uint32_t id);
    const Object* object(uint32_t id) const;
    // Checks an access of `size` bytes at `ptr`; on success `*out` points at the bytes.
    AccessError check(uint64_t ptr, uint64_t size, bool write, uint8_t** out);
    uint8_t* raw(const Object& o) { return arena_.data() + o.base; }
    const std::vector<uint8_t>& arena() const { return arena_; }
    size_t objectsAllocated() const;

    // "x", "flag[1]", "buf+3", "heap(main.c:12)": for traces; empty when the address is not an object.
    std::string describe(uint64_t ptr) const;
    // The object's own name ("a", "heap@12#0"), whatever the offset; its element size for arrays.
    std::string objectName(uint32_t id, uint32_t* elemSize = nullptr) const;
    // Hash of the contents of every live global and heap object (final-state comparison).
    uint64_t hashShared() const;

private:
    static constexpr size_t kRoomForLocals = 256; // bytes reserved past the globals' image (Memory::Memory)
    const program::Program& program_;
    std::vector<uint8_t> arena_;
    std::vector<uint8_t> initialImage_;
    std::vector<Object> fixed_;                  // index = object id (0 = null, globals, functions)
    std::vector<std::vector<Object>> perThread_; // perThread_[t][k] = object ((t+1) << 20 | k)
};

const char* accessErrorText(AccessError e);

} // namespace skein::exec
