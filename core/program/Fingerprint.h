#pragma once
// A fingerprint of the lowered program that is blind to source positions, for the language server: an edit to
// comments or formatting leaves it unchanged, so the previous result can be reused with its locations mapped.
//
// It differs from Program::fingerprint (computeFingerprint) in one respect: the line-number argument that
// assert() passes to __assert_fail is a constant of the program, so computeFingerprint changes when a comment
// above an assert() adds a line. Here a constant register whose only use is that argument is hashed as a
// placeholder. (A register that also has another use is hashed by value: a false difference only costs a
// re-exploration, a false equality would reuse a wrong result.)
#include <cstdint>

#include "core/program/Program.h"

namespace skein::program {

uint64_t positionIndependentFingerprint(const Program& p);

} // namespace skein::program
