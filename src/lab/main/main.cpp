#include "cli.hpp"

int main(int argc, char** argv) { return lab::run_cli(argc, argv); }
