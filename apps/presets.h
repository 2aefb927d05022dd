#pragma once
// The catalogue of standard tables (tables/presets.txt).

#include <string>
#include <vector>

namespace nimtb::apps {

struct Preset {
    std::string name, rules, convention;
    unsigned max_heaps = 0;
    unsigned max_heap_size = 0;
    std::string description;
};

const std::vector<Preset>& presets();
// The preset called `name` ("default": the first); throws UsageError listing the names.
const Preset& find_preset(const std::string& name);

}  // namespace nimtb::apps
