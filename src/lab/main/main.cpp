#include "main/cli.hpp"

int main(int argc, char** argv) {
  return alloclab::lab::alloclab_main(argc, argv);
}
