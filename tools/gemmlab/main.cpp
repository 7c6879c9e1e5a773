#include "gemmlab/commands.hpp"

int main(int argc, char** argv) { return gemmlab::cli::run(argc, argv); }
