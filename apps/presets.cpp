#include "apps/presets.h"

#include <sstream>

#include "apps/cli.h"
#include "apps/presets_text.h"

namespace nimtb::apps {
namespace {

std::string trim(const std::string& s) {
    const size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
    return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

std::vector<Preset> parse_presets() {
    std::vector<Preset> out;
    std::istringstream in(PRESETS_TEXT);
    std::string line;
    while (std::getline(in, line)) {
        if (trim(line).empty() || trim(line)[0] == '#') continue;
        std::vector<std::string> f;
        std::istringstream fields(line);
        std::string field;
        while (std::getline(fields, field, '|')) f.push_back(trim(field));
        if (f.size() != 6) continue;  // tables/presets.txt is checked by a test
        out.push_back({f[0], f[1], f[2], static_cast<unsigned>(std::stoul(f[3])),
                       static_cast<unsigned>(std::stoul(f[4])), f[5]});
    }
    return out;
}

}  // namespace

const std::vector<Preset>& presets() {
    static const std::vector<Preset> list = parse_presets();
    return list;
}

const Preset& find_preset(const std::string& name) {
    if (name == "default") return presets().front();
    for (const Preset& p : presets()) {
        if (p.name == name) return p;
    }
    std::string names;
    for (const Preset& p : presets()) names += (names.empty() ? "" : ", ") + p.name;
    throw UsageError("unknown preset '" + name + "': expected one of " + names +
                     " (see --list-presets)");
}

}  // namespace nimtb::apps
