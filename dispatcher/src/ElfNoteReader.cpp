// Reads a plugin's Ember notes straight from the file, so nothing of it runs before the loader
// has checked it (see Note [Plugin notes], Note [Plugin loading]). The file may be anything a
// user points at: every offset and size read from it is bounds-checked before use.
#include "ElfNoteReader.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>
#include <vector>

#include "ember/dispatcher/ElfNotes.h"

namespace ember::plugins {
namespace detail {
namespace {

// Notes are a few hundred bytes; a "note section" larger than this is garbage, not read.
constexpr uint64_t kMaxNoteBytes = uint64_t{16} << 20;

[[noreturn]] void not_shared(std::string_view who, const std::string& path, std::string_view why) {
  throw PluginError(PluginErrorKind::NotSharedLibrary,
                    fmt::format("{} '{}' is not a shared library: {}; expected an ELF64 shared "
                                "object (ET_DYN) for this machine",
                                who, path, why));
}

class File {
 public:
  File(std::string_view who, const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
      int err = errno;
      throw PluginError(PluginErrorKind::NotFound,
                        fmt::format("{} cannot open plugin file '{}': {}", who, path,
                                    std::generic_category().message(err)));
    }
    struct stat st {};
    if (::fstat(fd_, &st) != 0) {
      int err = errno;
      throw PluginError(PluginErrorKind::NotFound,
                        fmt::format("{} cannot stat plugin file '{}': {}", who, path,
                                    std::generic_category().message(err)));
    }
    if (S_ISDIR(st.st_mode)) not_shared(who, path, "it is a directory");
    if (!S_ISREG(st.st_mode)) not_shared(who, path, "it is not a regular file");
    size_ = static_cast<uint64_t>(st.st_size);
  }
  ~File() { ::close(fd_); }
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  uint64_t size() const { return size_; }
  // Reads [off, off + n) into dst; false when that range is not inside the file.
  bool read(uint64_t off, void* dst, uint64_t n) const {
    if (off > size_ || n > size_ - off) return false;
    auto* out = static_cast<char*>(dst);
    while (n > 0) {
      ssize_t got = ::pread(fd_, out, n, static_cast<off_t>(off));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return false;  // shrank under us, or an I/O error
      out += got;
      off += static_cast<uint64_t>(got);
      n -= static_cast<uint64_t>(got);
    }
    return true;
  }

 private:
  int fd_ = -1;
  uint64_t size_ = 0;
};

// Takes the NUL-terminated string at desc[pos, n) (or the rest of the descriptor when the NUL
// is missing) and moves pos past it. False when nothing is left.
bool take_string(const unsigned char* desc, size_t n, size_t& pos, std::string& out) {
  if (pos >= n) return false;
  const auto* begin = reinterpret_cast<const char*>(desc + pos);
  size_t len = strnlen(begin, n - pos);
  out.assign(begin, len);
  pos += len + 1;
  return true;
}

uint32_t read_u32(const unsigned char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// The first build note and the first plugin note win; type 1 (records) only means something
// in memory, and other types are reserved.
void take_note(uint32_t type, const unsigned char* desc, size_t n, PluginDescriptor& d) {
  if (n < 4) return;
  if (type == static_cast<uint32_t>(ember::detail::NoteType::Build) && !d.has_build_note) {
    d.has_build_note = true;
    d.abi_version = read_u32(desc);
    size_t pos = 4;
    take_string(desc, n, pos, d.fingerprint);
  } else if (type == static_cast<uint32_t>(ember::detail::NoteType::Plugin) &&
             !d.has_plugin_note) {
    d.has_plugin_note = true;
    if (!d.has_build_note) d.abi_version = read_u32(desc);
    size_t pos = 4;
    take_string(desc, n, pos, d.name);
    take_string(desc, n, pos, d.version);
    std::string dep;
    while (take_string(desc, n, pos, dep) && !dep.empty()) d.dependencies.push_back(dep);
  }
}

// Walks the notes of one SHT_NOTE section or PT_NOTE segment; stops at the first truncated one.
void parse_notes(const std::vector<unsigned char>& buf, uint64_t align, PluginDescriptor& d) {
  align = align == 8 ? 8 : 4;  // ELF64 notes are 4-aligned unless the section says 8
  auto up = [align](uint64_t x) { return (x + align - 1) & ~(align - 1); };
  const uint64_t size = buf.size();
  uint64_t off = 0;
  while (size - off >= sizeof(Elf64_Nhdr)) {
    Elf64_Nhdr h;
    std::memcpy(&h, buf.data() + off, sizeof h);
    // n_namesz and n_descsz are 32-bit, so none of these sums overflow 64 bits.
    uint64_t name_off = off + sizeof h;
    uint64_t desc_off = name_off + up(h.n_namesz);
    if (desc_off > size || h.n_descsz > size - desc_off) return;
    if (h.n_namesz == 6 && std::memcmp(buf.data() + name_off, "Ember", 6) == 0)
      take_note(h.n_type, buf.data() + desc_off, h.n_descsz, d);
    uint64_t next = desc_off + up(h.n_descsz);
    if (next > size) return;
    off = next;
  }
}

const char* elf_type_name(uint16_t t) {
  switch (t) {
    case ET_NONE: return "an ELF file of no type (ET_NONE)";
    case ET_REL: return "a relocatable object file (ET_REL), not linked into a shared library";
    case ET_EXEC: return "an executable (ET_EXEC)";
    case ET_CORE: return "a core dump (ET_CORE)";
    default: return "an ELF file of an unknown type";
  }
}

}  // namespace

PluginDescriptor read_descriptor(const std::string& path, std::string_view who) {
  File f(who, path);
  const uint64_t size = f.size();

  unsigned char ident[EI_NIDENT] = {};
  if (size < SELFMAG || !f.read(0, ident, SELFMAG))
    not_shared(who, path, fmt::format("file too short ({} bytes)", size));
  if (std::memcmp(ident, ELFMAG, SELFMAG) != 0)
    not_shared(who, path, "no ELF magic number (a text file or some other format)");
  if (size < sizeof(Elf64_Ehdr)) not_shared(who, path, "truncated ELF header");
  Elf64_Ehdr eh;
  if (!f.read(0, &eh, sizeof eh)) not_shared(who, path, "truncated ELF header");
  if (eh.e_ident[EI_CLASS] == ELFCLASS32) not_shared(who, path, "a 32-bit (ELFCLASS32) ELF file");
  if (eh.e_ident[EI_CLASS] != ELFCLASS64)
    not_shared(who, path, fmt::format("unknown ELF class {}", eh.e_ident[EI_CLASS]));
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  constexpr unsigned char kHostData = ELFDATA2LSB;
#else
  constexpr unsigned char kHostData = ELFDATA2MSB;
#endif
  if (eh.e_ident[EI_DATA] != kHostData)
    not_shared(who, path, "its byte order differs from this machine's");
  if (eh.e_type != ET_DYN) not_shared(who, path, elf_type_name(eh.e_type));
#if defined(__x86_64__)
  constexpr Elf64_Half kHostMachine = EM_X86_64;
  constexpr const char* kHostName = "x86-64";
#elif defined(__aarch64__)
  constexpr Elf64_Half kHostMachine = EM_AARCH64;
  constexpr const char* kHostName = "AArch64";
#endif
#if defined(__x86_64__) || defined(__aarch64__)
  if (eh.e_machine != kHostMachine)
    not_shared(who, path,
               fmt::format("built for another machine (ELF e_machine {}), this one is {} (e_machine {})",
                           eh.e_machine, kHostName, kHostMachine));
#endif

  PluginDescriptor d;
  bool found_note_section = false;
  std::vector<unsigned char> buf;

  if (eh.e_shoff != 0) {
    if (eh.e_shentsize < sizeof(Elf64_Shdr))
      not_shared(who, path, fmt::format("bad section header size {}", eh.e_shentsize));
    uint64_t count = eh.e_shnum;
    if (count == 0) {  // extended numbering: the real count is in section 0's sh_size
      Elf64_Shdr sh0;
      if (!f.read(eh.e_shoff, &sh0, sizeof sh0))
        not_shared(who, path, "truncated: the section header table is past the end of the file");
      count = sh0.sh_size;
    }
    if (eh.e_shoff > size || count > (size - eh.e_shoff) / eh.e_shentsize)
      not_shared(who, path,
                 fmt::format("truncated: {} section headers at offset {} do not fit in {} bytes",
                             count, eh.e_shoff, size));
    for (uint64_t i = 0; i < count; ++i) {
      Elf64_Shdr sh;
      if (!f.read(eh.e_shoff + i * eh.e_shentsize, &sh, sizeof sh))
        not_shared(who, path, "truncated section header table");
      if (sh.sh_type != SHT_NOTE || sh.sh_size > kMaxNoteBytes) continue;
      found_note_section = true;
      buf.resize(sh.sh_size);
      if (!f.read(sh.sh_offset, buf.data(), sh.sh_size))
        not_shared(who, path, fmt::format("truncated: note section {} is past the end of the file", i));
      parse_notes(buf, sh.sh_addralign, d);
    }
  }

  // A file stripped of its section headers still has its PT_NOTE segments.
  if (!found_note_section && eh.e_phoff != 0 && eh.e_phentsize >= sizeof(Elf64_Phdr)) {
    uint64_t count = eh.e_phnum;
    if (eh.e_phoff > size || count > (size - eh.e_phoff) / eh.e_phentsize)
      not_shared(who, path, "truncated: the program header table is past the end of the file");
    for (uint64_t i = 0; i < count; ++i) {
      Elf64_Phdr ph;
      if (!f.read(eh.e_phoff + i * eh.e_phentsize, &ph, sizeof ph))
        not_shared(who, path, "truncated program header table");
      if (ph.p_type != PT_NOTE || ph.p_filesz > kMaxNoteBytes) continue;
      buf.resize(ph.p_filesz);
      if (!f.read(ph.p_offset, buf.data(), ph.p_filesz))
        not_shared(who, path, fmt::format("truncated: note segment {} is past the end of the file", i));
      parse_notes(buf, ph.p_align, d);
    }
  }
  return d;
}

}  // namespace detail

PluginDescriptor read_descriptor(const std::string& path) {
  return detail::read_descriptor(path, "[plugins::read_descriptor]");
}

}  // namespace ember::plugins
