#pragma once
// [e], the local configuration of an event of the unfolding, walked by hand through its immediate predecessors:
// the reference the unfolding tests hold EventStructure's summaries and conflict queries against.
#include <set>
#include <vector>

#include "core/explore/unfolding/EventStructure.h"

namespace skein::testing {

inline std::set<explore::unfolding::UEvent*> localConfiguration(explore::unfolding::UEvent* e) {
    std::set<explore::unfolding::UEvent*> h;
    std::vector<explore::unfolding::UEvent*> todo = {e};
    while (!todo.empty()) {
        explore::unfolding::UEvent* x = todo.back();
        todo.pop_back();
        if (!h.insert(x).second) continue;
        explore::unfolding::forEachPredecessor(*x, [&](explore::unfolding::UEvent* p) {
            todo.push_back(p);
            return true;
        });
    }
    return h;
}

} // namespace skein::testing
