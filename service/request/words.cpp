#include "service/request/words.h"

#include "engine/errors.h"

namespace nimtb::service {

std::string command_line_words(std::string_view message) {
    return worded(message, [](Option o) -> std::string {
        switch (o) {
            case Option::output:
                return "output with -o";
            case Option::overwrite:
                return "overwrite it with --force";
            case Option::max_total:
                return "--max-total N";
            case Option::max_total_only:
                return "--max-total N without --heaps";
            case Option::kernel_brute:
                return "--kernel brute";
            case Option::checkpoint:
                return "--checkpoint";
            case Option::no_remoteness:
                return "--no-remoteness";
            case Option::sequence_out:
                return "--out";
            case Option::level:
                return "--level";
            case Option::format_version:
                return "--format-version";
            case Option::stats:
                return "--stats";
            case Option::checkpoint_every:
                return "--checkpoint-every";
        }
        return "";
    });
}

}  // namespace nimtb::service
