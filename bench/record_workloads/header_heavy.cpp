// A header-heavy translation unit for scripts/record-overhead.sh: cc1plus parses most of the
// standard library and instantiates a few templates.
#include <algorithm>
#include <any>
#include <array>
#include <chrono>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <iomanip>
#include <iostream>
#include <list>
#include <map>
#include <memory>
#include <memory_resource>
#include <numeric>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

int main() {
  std::map<std::string, std::vector<int>> m;
  std::unordered_map<int, std::set<std::string>> u;
  std::regex r("a+b");
  std::variant<int, std::string, double> v = 1.0;
  m["x"].push_back(static_cast<int>(std::regex_match("aab", r)));
  u[1].insert(std::to_string(std::get<double>(v)));
  std::cout << m.size() + u.size() << '\n';
}
