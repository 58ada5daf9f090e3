// Shared pieces for workloads: a portable seeded generator, checksum mixing, record types.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace alloclab::lab {

// splitmix64: tiny, portable, and identical on every platform (std distributions are not).
class seeded_rng {
 public:
  explicit seeded_rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi]; the modulo bias is irrelevant for workload data.
  std::uint64_t between(std::uint64_t lo, std::uint64_t hi) { return lo + next() % (hi - lo + 1); }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

// Folds a value into a running checksum (order-sensitive).
constexpr std::uint64_t mix(std::uint64_t acc, std::uint64_t value) {
  acc ^= value + 0x9E3779B97F4A7C15ULL + (acc << 6) + (acc >> 2);
  return acc;
}

inline std::uint64_t mix_bytes(std::uint64_t acc, std::string_view bytes) {
  acc = mix(acc, bytes.size());
  for (unsigned char c : bytes) acc = mix(acc, c);
  return acc;
}

inline std::uint64_t bits_of(double d) {
  std::uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}

// Appends the decimal form of `value` to any string type without a temporary std::string
// (std::to_string would allocate from the global heap behind the strategy's back).
template <class String>
void append_number(String& out, std::uint64_t value) {
  char digits[24];
  auto result = std::to_chars(digits, digits + sizeof digits, value);
  out.append(digits, static_cast<std::size_t>(result.ptr - digits));
}

// Seed 000's record: 4 + 4 (padding) + 8 + 8 + 8 + 32 = 64 bytes on LP64 (the seed says 80).
struct SensorData {
  int id;
  double temperature;
  double pressure;
  std::uint64_t timestamp;
  char label[32];
};
static_assert(sizeof(void*) != 8 || sizeof(SensorData) == 64, "SensorData is 64 bytes on LP64");

inline SensorData make_sensor(seeded_rng& rng, int id) {
  SensorData s{};
  s.id = id;
  s.temperature = 15.0 + 20.0 * rng.unit();
  s.pressure = 980.0 + 40.0 * rng.unit();
  s.timestamp = 1'700'000'000'000ULL + static_cast<std::uint64_t>(id) * 1000U + rng.between(0, 999);
  std::string_view prefix = "sensor_";
  std::memcpy(s.label, prefix.data(), prefix.size());
  std::to_chars(s.label + prefix.size(), s.label + sizeof s.label - 1, id);
  return s;
}

inline std::uint64_t checksum_of(const SensorData& s) {
  std::uint64_t acc = mix(static_cast<std::uint64_t>(s.id), s.timestamp);
  acc = mix(acc, bits_of(s.temperature));
  return mix(acc, bits_of(s.pressure));
}

}  // namespace alloclab::lab
