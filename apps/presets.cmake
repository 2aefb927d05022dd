# Embeds tables/presets.txt in the binary as a string constant.
file(READ ${INPUT} CONTENT)
file(WRITE ${OUTPUT} "#pragma once\n// Generated from tables/presets.txt.\nnamespace nimtb::apps {\ninline constexpr const char* PRESETS_TEXT = R\"nimtb(${CONTENT})nimtb\";\n}\n")
