#include "core/explore/unfolding/Tree.h"

namespace skein::explore::unfolding {

void TreeNode::attach(TreeNode* parentNode, unsigned s) {
    parent = parentNode;
    depth = parentNode ? parentNode->depth + 1 : 1;
    // Number of trailing zeros of `depth` in base s: the skip pointers this node keeps.
    uint8_t tz = 0;
    for (uint64_t d = depth, pw = s; d % s == 0 && pw <= depth; d /= s, pw *= s) ++tz;
    levels = tz;
    if (!tz) return;
    skip = std::make_unique<TreeNode*[]>(tz);
    uint64_t dist = s;
    for (uint8_t j = 0; j < tz; ++j, dist *= s) {
        // The ancestor at depth − s^(j+1): from the ancestor at depth − s^j (or the parent for j = 0) jump by
        // the largest known pointers; ancestorAtDepth does exactly that.
        uint64_t target = depth - dist;
        skip[j] = const_cast<TreeNode*>(ancestorAtDepth(parentNode, uint32_t(target), s));
    }
}

const TreeNode* ancestorAtDepth(const TreeNode* n, uint32_t g, unsigned s) {
    while (n && n->depth > g) {
        // The longest jump that does not overshoot.
        const TreeNode* next = n->parent;
        uint64_t dist = s;
        for (uint8_t j = 0; j < n->levels; ++j, dist *= s) {
            if (n->depth - dist < g) break;
            next = n->skip[j];
        }
        n = next;
    }
    return n;
}

bool isAncestorOrSelf(const TreeNode* a, const TreeNode* b, unsigned s) {
    if (!a) return true;
    if (!b || b->depth < a->depth) return false;
    return ancestorAtDepth(b, a->depth, s) == a;
}

} // namespace skein::explore::unfolding
