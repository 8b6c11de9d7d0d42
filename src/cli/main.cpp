// main.cpp — the `ssids` command-line program (placeholder while the subcommands are written).
#include <cstdio>
int main() { std::puts("ssids"); return 0; }
