#pragma once
// Trees with skip-list ancestor pointers (QPOR, Sec. 5.2). Every thread and every shared resource (mutex,
// condition variable, memory word) has a tree whose ancestor relation is the causality of its events and whose
// branching is conflict (Sec. 5.1). A node at depth d keeps its parent and, for every j ≤ the number of trailing
// zeros of d in base s, a pointer to its ancestor at depth d − s^j; reaching depth g from depth d then visits
// O(log(d − g)) nodes. The root (depth 0) is the null node ⊥, ancestor of every node.
#include <cstdint>
#include <memory>

namespace skein::explore::unfolding {

struct TreeNode {
    TreeNode* parent = nullptr; // null: the root ⊥
    uint32_t depth = 0;         // ≥ 1 once attached
    uint8_t levels = 0;         // skip pointers stored
    std::unique_ptr<TreeNode*[]> skip; // skip[j-1] = ancestor at depth − s^j
    void* owner = nullptr;             // the event this node belongs to

    TreeNode() = default;
    // Nodes are attached in place; copying yields a fresh, unattached node (used when event descriptions that
    // embed a node are copied before the event exists).
    TreeNode(const TreeNode&) {}
    TreeNode& operator=(const TreeNode&) { return *this; }
    TreeNode(TreeNode&&) = default;
    TreeNode& operator=(TreeNode&&) = default;

    // Links `n` under `parent` (null = root) with skip step `s` ≥ 2.
    void attach(TreeNode* parentNode, unsigned s);
};

// The ancestor of `n` at depth `g` ≤ depth(n); null for g = 0.
const TreeNode* ancestorAtDepth(const TreeNode* n, uint32_t g, unsigned s);
// True when `a` is `b` or an ancestor of `b` (null `a` is the root: always true; null `b` only has the root).
bool isAncestorOrSelf(const TreeNode* a, const TreeNode* b, unsigned s);
// Two nodes of one tree are ordered (one is an ancestor of the other) or they have branched: in conflict.
inline bool ordered(const TreeNode* a, const TreeNode* b, unsigned s) {
    if (!a || !b) return true;
    return a->depth <= b->depth ? isAncestorOrSelf(a, b, s) : isAncestorOrSelf(b, a, s);
}

} // namespace skein::explore::unfolding
