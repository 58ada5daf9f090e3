#include "mallocs/preload_check.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "mallocs/malloc_table.hpp"

namespace alloclab::mallocs {

namespace {

#if defined(__x86_64__)
constexpr Elf64_Half native_machine = EM_X86_64;
#elif defined(__aarch64__)
constexpr Elf64_Half native_machine = EM_AARCH64;
#else
constexpr Elf64_Half native_machine = EM_NONE;  // not checked
#endif

/// Read-only mapping of a whole file, unmapped on destruction.
class mapped_file {
 public:
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  explicit mapped_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      error_ = std::strerror(errno);
      return;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      error_ = std::strerror(errno);
    } else if (!S_ISREG(st.st_mode)) {
      error_ = "not a regular file";
    } else if (st.st_size > 0) {
      size_ = static_cast<std::size_t>(st.st_size);
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        error_ = std::strerror(errno);
        size_ = 0;
      } else {
        data_ = static_cast<const unsigned char*>(p);
      }
    }
    ::close(fd);
  }
  ~mapped_file() {
    if (data_ != nullptr) ::munmap(const_cast<unsigned char*>(data_), size_);
  }
  const std::string& error() const noexcept { return error_; }
  std::size_t size() const noexcept { return size_; }
  /// Copies a T from `offset` if it lies entirely inside the file.
  template <class T>
  bool read(std::uint64_t offset, T& out) const noexcept {
    if (offset > size_ || sizeof(T) > size_ - offset) return false;
    std::memcpy(&out, data_ + offset, sizeof(T));
    return true;
  }
  bool in_range(std::uint64_t offset, std::uint64_t length) const noexcept {
    return offset <= size_ && length <= size_ - offset;
  }
  const char* chars(std::uint64_t offset) const noexcept {
    return reinterpret_cast<const char*>(data_ + offset);
  }

 private:
  const unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
  std::string error_;
};

struct exported {
  bool malloc = false;
  bool free = false;
};

/// Calls `visit(name)` for every defined, global/weak, default-visibility function symbol of
/// SHT_DYNSYM; false with `error` set when there is no readable dynamic symbol table.
template <class Visit>
bool for_each_defined_function(const mapped_file& f, const Elf64_Ehdr& eh, Visit&& visit,
                               std::string& error) {
  if (eh.e_shoff == 0 || eh.e_shnum == 0 || eh.e_shentsize != sizeof(Elf64_Shdr)) {
    error = "has no section headers, cannot read its dynamic symbol table";
    return false;
  }
  bool saw_dynsym = false;
  for (std::uint32_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh{};
    if (!f.read(eh.e_shoff + std::uint64_t{i} * sizeof(Elf64_Shdr), sh)) break;
    if (sh.sh_type != SHT_DYNSYM) continue;
    saw_dynsym = true;
    Elf64_Shdr strsh{};
    if (sh.sh_link >= eh.e_shnum ||
        !f.read(eh.e_shoff + std::uint64_t{sh.sh_link} * sizeof(Elf64_Shdr), strsh) ||
        !f.in_range(strsh.sh_offset, strsh.sh_size) || !f.in_range(sh.sh_offset, sh.sh_size)) {
      error = "has a malformed dynamic symbol table";
      return false;
    }
    const std::uint64_t count = sh.sh_size / sizeof(Elf64_Sym);
    for (std::uint64_t k = 0; k < count; ++k) {
      Elf64_Sym sym{};
      if (!f.read(sh.sh_offset + k * sizeof(Elf64_Sym), sym)) break;
      if (sym.st_shndx == SHN_UNDEF || sym.st_name >= strsh.sh_size) continue;
      const unsigned type = ELF64_ST_TYPE(sym.st_info);
      const unsigned bind = ELF64_ST_BIND(sym.st_info);
      if (type != STT_FUNC && type != STT_GNU_IFUNC) continue;
      if (bind != STB_GLOBAL && bind != STB_WEAK) continue;
      if (ELF64_ST_VISIBILITY(sym.st_other) != STV_DEFAULT) continue;
      const char* name = f.chars(strsh.sh_offset + sym.st_name);
      const std::size_t max_len = strsh.sh_size - sym.st_name;
      visit(std::string_view(name, strnlen(name, max_len)));
    }
  }
  if (!saw_dynsym) {
    error = "has no dynamic symbol table";
    return false;
  }
  return true;
}

/// Scans SHT_DYNSYM for defined, global/weak function symbols named malloc and free.
bool scan_dynsym(const mapped_file& f, const Elf64_Ehdr& eh, exported& out, std::string& error) {
  return for_each_defined_function(
      f, eh,
      [&out](std::string_view n) {
        if (n == "malloc") out.malloc = true;
        if (n == "free") out.free = true;
      },
      error);
}

/// The ELF header of a 64-bit ELF file, or false.
bool read_elf64_header(const mapped_file& f, Elf64_Ehdr& eh) {
  unsigned char ident[EI_NIDENT] = {};
  return f.error().empty() && f.size() >= EI_NIDENT && f.read(0, ident) &&
         std::memcmp(ident, ELFMAG, SELFMAG) == 0 && ident[EI_CLASS] == ELFCLASS64 && f.read(0, eh);
}

}  // namespace

preload_check validate_preload(std::string_view path_or_soname) {
  preload_check r;
  const std::string given(path_or_soname);
  if (given.empty()) {
    r.error = "empty preload library path";
    return r;
  }
  const auto resolved = resolve_library(given);
  if (!resolved) {
    if (given.find('/') != std::string::npos) {
      struct stat st {};
      if (::stat(given.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
        r.error = "preload library '" + given + "' is not a regular file";
      } else {
        r.error = "preload library '" + given + "' does not exist";
      }
    } else {
      r.error = "preload library '" + given + "' not found in the library search path";
    }
    return r;
  }
  r.path = *resolved;
  const std::string where = "preload library '" + r.path + "'";
  if (::access(r.path.c_str(), R_OK) != 0) {
    r.error = where + " is not readable: " + std::strerror(errno);
    return r;
  }
  const mapped_file f(r.path);
  if (!f.error().empty()) {
    r.error = where + " cannot be read: " + f.error();
    return r;
  }
  unsigned char ident[EI_NIDENT] = {};
  if (f.size() < EI_NIDENT || !f.read(0, ident) || std::memcmp(ident, ELFMAG, SELFMAG) != 0) {
    r.error = where + " is not an ELF file";
    return r;
  }
  if (ident[EI_CLASS] != ELFCLASS64) {
    r.error = where + " is not a 64-bit ELF object";
    return r;
  }
  Elf64_Ehdr eh{};
  if (!f.read(0, eh)) {
    r.error = where + " has a truncated ELF header";
    return r;
  }
  if (eh.e_type != ET_DYN) {
    r.error = where + " is not a shared library";
    return r;
  }
  if (native_machine != EM_NONE && eh.e_machine != native_machine) {
    r.error = where + " is built for another architecture";
    return r;
  }
  exported ex;
  std::string error;
  if (!scan_dynsym(f, eh, ex, error)) {
    r.error = where + " " + error;
    return r;
  }
  if (!ex.malloc || !ex.free) {
    r.error = where + " is not a malloc implementation (it does not export " +
              (ex.malloc ? "free" : (ex.free ? "malloc" : "malloc and free")) + ")";
    return r;
  }
  r.ok = true;
  return r;
}

bool elf_defines_function(const std::string& path, std::string_view symbol) {
  const mapped_file f(path);
  Elf64_Ehdr eh{};
  if (!read_elf64_header(f, eh)) return false;
  bool defined = false;
  std::string ignored;
  for_each_defined_function(
      f, eh, [&](std::string_view n) { defined = defined || n == symbol; }, ignored);
  return defined;
}

}  // namespace alloclab::mallocs
