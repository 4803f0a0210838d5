// The skip-list trees of QPOR Sec. 5.2 against a naive walk to the root, on random trees, for several steps.
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "core/explore/unfolding/Tree.h"

using skein::explore::unfolding::TreeNode;

namespace {

bool naiveAncestorOrSelf(const TreeNode* a, const TreeNode* b) {
    if (!a) return true;
    for (const TreeNode* n = b; n; n = n->parent)
        if (n == a) return true;
    return false;
}

TEST(SkipTree, AncestorQueriesMatchNaiveWalk) {
    for (unsigned step : {2u, 3u, 4u, 8u}) {
        std::mt19937 rng(1234 + step);
        for (int round = 0; round < 20; ++round) {
            std::vector<std::unique_ptr<TreeNode>> nodes;
            int n = 50 + int(rng() % 400);
            for (int i = 0; i < n; ++i) {
                auto node = std::make_unique<TreeNode>();
                // Mostly extend a recent node (deep branches, as in unfoldings), sometimes branch anywhere.
                TreeNode* parent = nullptr;
                if (!nodes.empty()) {
                    size_t pick = rng() % 4 ? nodes.size() - 1 - rng() % std::min<size_t>(nodes.size(), 3)
                                            : rng() % nodes.size();
                    parent = rng() % 50 ? nodes[pick].get() : nullptr;
                }
                node->attach(parent, step);
                nodes.push_back(std::move(node));
            }
            for (int q = 0; q < 2000; ++q) {
                const TreeNode* a = nodes[rng() % nodes.size()].get();
                const TreeNode* b = nodes[rng() % nodes.size()].get();
                ASSERT_EQ(skein::explore::unfolding::isAncestorOrSelf(a, b, step), naiveAncestorOrSelf(a, b))
                    << "step " << step << " depths " << a->depth << " " << b->depth;
                uint32_t g = b->depth ? uint32_t(rng() % (b->depth + 1)) : 0;
                const TreeNode* naive = b;
                while (naive && naive->depth > g) naive = naive->parent;
                ASSERT_EQ(skein::explore::unfolding::ancestorAtDepth(b, g, step), naive);
            }
        }
    }
}

TEST(SkipTree, SkipPointersFollowTrailingZeros) {
    // A single chain: with s = 2, the node at depth 12 (1100b) keeps pointers to depths 10 and 8 (Sec. 5.2's
    // example), the node at depth 4 to depths 2 and 0 (the root).
    std::vector<std::unique_ptr<TreeNode>> chain;
    TreeNode* parent = nullptr;
    for (int i = 0; i < 16; ++i) {
        chain.push_back(std::make_unique<TreeNode>());
        chain.back()->attach(parent, 2);
        parent = chain.back().get();
    }
    const TreeNode* d12 = chain[11].get();
    ASSERT_EQ(d12->depth, 12u);
    ASSERT_EQ(d12->levels, 2);
    EXPECT_EQ(d12->skip[0]->depth, 10u);
    EXPECT_EQ(d12->skip[1]->depth, 8u);
    const TreeNode* d4 = chain[3].get();
    ASSERT_EQ(d4->levels, 2);
    EXPECT_EQ(d4->skip[0]->depth, 2u);
    EXPECT_EQ(d4->skip[1], nullptr);
}

} // namespace
