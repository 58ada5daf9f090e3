// A statically linked program for the program frame's tests: it ignores LD_PRELOAD, so no malloc
// can be proven live in it and `alloclab try` must call its runs failed.
int main() {
  return 0;
}
