// The compiler input of scripts/validate-replay.sh: cc1plus parses these headers and
// instantiates the templates below (a typical small translation unit).
#include <algorithm>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>
int main() {
  std::map<std::string, std::vector<int>> m;
  std::unordered_map<int, std::string> u;
  std::ostringstream out;
  for (int i = 0; i < 10; ++i) m[std::to_string(i)].push_back(i);
  std::cout << out.str() << '\n';
}
