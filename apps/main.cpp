#include <cstdio>
#include "engine/version.h"
int main() { std::printf("nimtb %s\n", nimtb::VERSION); }
