// printf's conversions, as far as which arguments they take and which are strings: shared by the lowering (a
// constant format's %s strings are read by an event at the call, LowerCall.cpp) and the executor (a
// va_list's, for the printf family's C models: __skein_format_string). The executor's formatting
// (Executor::formatPrintf) takes the arguments in the same order.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace skein::program {

struct StringConversion {
    // The argument holding the string (0: the first after the format).
    uint32_t arg = 0;
    // A literal precision, -1 for none.
    int32_t precision = -1;
    // The argument holding a `.*` precision (an int; a negative one is none), -1 if none.
    int32_t precisionArg = -1;
};

struct FormatScan {
    std::vector<StringConversion> strings;
    uint32_t wanted = 0; // the arguments the format takes
};

// %d %i %u %x %X %o %c %p %s %f %F %e %E %g %G %a %A take an argument, and each `*` of a width or precision
// one before it; %% and anything else (%n among them: printed, not performed) take none. A conversion cut
// short by the end of the format ends the scan.
FormatScan scanFormat(std::string_view fmt);

} // namespace skein::program
