// What a compare-exchange reads, where its history tells (DESIGN.md, "Compare-exchange"): its action is a read of
// the unfolding where that value is not the one it expects, a write otherwise. The value is assembled byte by byte
// from the writes of each of its words, newest first — the parents in the word's tree (Sec. 5) — down to a global's
// initial bytes.
#include <algorithm>

#include "core/explore/unfolding/QporImpl.h"

namespace skein::explore::unfolding {

using model::EventKind;

bool QporExplorer::bytesAfter(const model::Event& label, uint64_t word, const UEvent* parent, bool walk,
                              uint64_t& value) const {
    const uint64_t lo = std::max(label.addr, word), hi = std::min(label.addr + label.size, word + model::kWordSize);
    uint32_t need = 0; // bit i: byte lo + i not known yet
    for (uint64_t a = lo; a < hi; ++a) need |= 1u << (a - lo);
    // Takes the bytes still needed that [from, from + size) holds, byte a being byteAt(a).
    auto take = [&](uint64_t from, uint64_t size, auto byteAt) {
        for (uint64_t a = std::max(lo, from); a < std::min(hi, from + size); ++a)
            if (need >> (a - lo) & 1) {
                value |= uint64_t(byteAt(a)) << (8 * (a - label.addr));
                need &= ~(1u << (a - lo));
            }
    };
    auto bytesOf = [](uint64_t from, uint64_t v) { return [=](uint64_t a) { return uint8_t(v >> (8 * (a - from))); }; };
    const Resource res{word, ResKind::Memory};
    for (const UEvent* p = parent; need;) {
        if (!p) {
            // No write of the word before: a global's initial bytes (every store to a shared global is an event), or
            // a heap word's zeros from malloc or calloc (every access of a heap object is an event; the allocation is
            // in the compare-exchange's history — the pointer reached its thread — so in C, whose state the executor
            // is at). Not a realloc's copy, which no event wrote, nor an uninitialised stack word.
            if (ex_.zeroedAtAllocation(lo)) {
                take(lo, hi - lo, [](uint64_t) { return uint8_t(0); });
                break;
            }
            const uint32_t object = program::pointerObject(lo);
            if (object < 1 || object > prog_.globals.size() || prog_.globalObject(object - 1) != object) return false;
            const program::Global& g = prog_.globals[object - 1];
            if (g.threadLocal || program::pointerOffset(hi - 1) >= g.init.size()) return false;
            take(lo, hi - lo, [&](uint64_t a) { return g.init[program::pointerOffset(a)]; });
            break;
        }
        if (p->section) {
            // What the section's run left in the bytes it stored whole (Sections.cpp, sectionRunsAt). A byte of the
            // word none of these covers was written otherwise by the run, or left alone: not told apart here.
            auto it = sectionWrites_.find(p->id);
            if (it == sectionWrites_.end()) return false;
            for (const WordWrite& w : it->second)
                if (w.size <= 8) take(w.addr, w.size, bytesOf(w.addr, w.value));
            if (need) return false;
            break;
        }
        const model::Event& w = p->label;
        if (w.kind == EventKind::Write && w.builtin) take(w.addr, w.size, [&](uint64_t) { return uint8_t(w.value); });
        else if (w.kind == EventKind::Write && w.size <= 8) take(w.addr, w.size, bytesOf(w.addr, w.value));
        else if (w.kind == EventKind::Rmw && w.size <= 8) take(w.addr, w.size, bytesOf(w.addr, w.value2));
        else return false; // a copy's or a free's bytes are not in its label
        if (!need || !walk) break;
        // The word's tree orders its writes (Sec. 5): the parent of p's node is the write of the word before p.
        const Access* acc = p->access(res);
        if (!acc) return false;
        p = acc->parent;
    }
    return need == 0;
}

bool QporExplorer::casFailsAfter(const model::Event& label, std::span<const Access> accesses,
                                 std::span<UEvent* const> parents, bool walk) const {
    uint64_t value = 0;
    for (size_t i = 0; i < accesses.size(); ++i)
        if (!bytesAfter(label, accesses[i].res.addr(), parents[i], walk, value)) {
            casUnknown_ = true;
            return false;
        }
    const uint64_t mask = label.size >= 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * label.size)) - 1;
    return ((value ^ label.addr2) & mask) != 0;
}

} // namespace skein::explore::unfolding
