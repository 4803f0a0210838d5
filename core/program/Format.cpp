#include "core/program/Format.h"

namespace skein::program {

FormatScan scanFormat(std::string_view fmt) {
    FormatScan out;
    constexpr std::string_view kSpec = "-+ #0123456789.*", kLength = "hlLqjzt", kTakes = "diuxXocpsfFeEgGaA";
    for (size_t i = 0; i < fmt.size(); ++i) {
        if (fmt[i] != '%') continue;
        size_t j = i + 1;
        bool afterDot = false;
        StringConversion s;
        for (; j < fmt.size() && kSpec.find(fmt[j]) != std::string_view::npos; ++j) {
            const char c = fmt[j];
            if (c == '.') {
                afterDot = true;
                s.precision = 0; // "%.s": a precision of 0
                s.precisionArg = -1;
            } else if (c == '*') {
                if (afterDot) s.precisionArg = int32_t(out.wanted), s.precision = -1;
                ++out.wanted;
            } else if (afterDot && c >= '0' && c <= '9' && s.precision >= 0 && s.precision < 100000000) {
                s.precision = s.precision * 10 + (c - '0');
            }
        }
        while (j < fmt.size() && kLength.find(fmt[j]) != std::string_view::npos) ++j;
        if (j >= fmt.size()) break;
        i = j;
        if (kTakes.find(fmt[j]) == std::string_view::npos) continue;
        s.arg = out.wanted++;
        if (fmt[j] == 's') out.strings.push_back(s);
    }
    return out;
}

} // namespace skein::program
