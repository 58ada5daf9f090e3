// libFuzzer target: any byte string given to the trace reader and `trace info` must either
// be read or be refused with trace_error, never crash, hang or throw anything else.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "trace/trace_info.hpp"
#include "trace/trace_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path =
      "/tmp/alloclab_trace_fuzz_" + std::to_string(static_cast<long>(::getpid()));
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    const alloclab::trace::trace_file trace(path);
    const auto summary = alloclab::trace::summarize(trace);
    (void)alloclab::trace::render_summary(trace, summary);
  } catch (const alloclab::trace::trace_error&) {
  }
  return 0;
}
