// ember::save / ember::load and ember::safetensors: tensors to and from the safetensors format
// (SafetensorsFormat.cpp). See Note [safetensors] in ember/serialize.h.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>

#include "SafetensorsFormat.h"
#include "ember/api/Operators.h"
#include "ember/core/LocalState.h"
#include "ember/serialize.h"

namespace ember {

namespace {

namespace stf = safetensors::format;
using stf::Dtype;
using stf::Origin;

std::optional<Dtype> format_dtype(ScalarType t) {
  switch (t) {
    case kBool:
      return Dtype::BOOL;
    case kUInt8:
      return Dtype::U8;
    case kInt8:
      return Dtype::I8;
    case kInt16:
      return Dtype::I16;
    case kInt32:
      return Dtype::I32;
    case kInt64:
      return Dtype::I64;
    case kFloat16:
      return Dtype::F16;
    case kBFloat16:
      return Dtype::BF16;
    case kFloat32:
      return Dtype::F32;
    case kFloat64:
      return Dtype::F64;
    default:
      return std::nullopt;
  }
}

std::optional<ScalarType> ember_dtype(Dtype d) {
  for (int i = 0; i < kNumScalarTypes; ++i) {
    auto t = static_cast<ScalarType>(i);
    if (format_dtype(t) == d) return t;
  }
  return std::nullopt;
}

std::string errno_text() { return std::strerror(errno); }

// The error helpers: "[fn] source: problem".
template <class E = ValueError, class... A>
[[noreturn]] void fail(const Origin& o, fmt::format_string<A...> f, A&&... args) {
  EMBER_THROW(E, "[{}] {}: {}", o.fn, o.source, fmt::format(f, std::forward<A>(args)...));
}

// ---- writing ----

struct Prepared {
  std::string header;        // length prefix and padded JSON
  std::vector<Tensor> data;  // CPU, contiguous, in write order
};

Prepared prepare(const OrderedDict<std::string, Tensor>& tensors, const safetensors::Metadata& metadata,
                 const Origin& o) {
  struct Item {
    const std::string* name;
    Dtype dtype;
    Tensor t;
  };
  std::vector<Item> items;
  items.reserve(tensors.size());
  NoGradGuard no_grad;
  for (const auto& it : tensors) {
    const std::string& name = it.key();
    const Tensor& t = it.value();
    if (name == "__metadata__") fail(o, "'__metadata__' is reserved for the metadata and cannot name a tensor");
    if (!t.defined()) fail(o, "tensor '{}' is undefined", name);
    auto d = format_dtype(t.scalar_type());
    if (t.scalar_type() == kComplex64)
      fail<NotImplementedError>(o, "tensor '{}' has dtype complex64: writing safetensors C64 is not implemented", name);
    if (!d) fail<TypeError>(o, "tensor '{}' has dtype {}, which safetensors cannot store", name, t.scalar_type());
    if (t.is_meta()) fail(o, "tensor '{}' is on the meta device and has no data", name);
    Tensor c = t.is_cpu() ? t : t.cpu();
    if (!c.is_contiguous()) c = c.contiguous();  // C order
    items.push_back({&name, *d, std::move(c)});
  }
  std::sort(items.begin(), items.end(),
            [](const Item& a, const Item& b) { return a.dtype != b.dtype ? a.dtype > b.dtype : *a.name < *b.name; });
  std::vector<stf::Entry> entries;
  entries.reserve(items.size());
  Prepared p;
  p.data.reserve(items.size());
  uint64_t at = 0;
  for (auto& item : items) {
    stf::Entry e{*item.name, item.dtype, {}, at, at + item.t.nbytes()};
    for (int64_t s : item.t.sizes()) e.shape.push_back(static_cast<uint64_t>(s));
    at = e.end;
    entries.push_back(std::move(e));
    p.data.push_back(std::move(item.t));
  }
  p.header = stf::make_header(entries, metadata.empty() ? nullptr : &metadata, o);
  return p;
}

void write_all(int fd, const void* data, size_t n, const Origin& o, const std::string& tmp) {
  auto* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, std::min<size_t>(n, size_t{1} << 30));
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) fail(o, "cannot write '{}': {}", tmp, errno_text());
    p += w;
    n -= static_cast<size_t>(w);
  }
}

// Writes beside `path` and renames over it: a reader that mapped the old file keeps its pages.
void write_file(const std::string& path, const Prepared& p, const Origin& o) {
  namespace fs = std::filesystem;
  fs::path target(path);
  if (target.filename().empty()) fail(o, "the path names a directory, not a file");
  static std::atomic<uint64_t> counter{0};
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; fd < 0; ++attempt) {
    tmp = (target.parent_path() /
           fmt::format(".{}.{}.{}.tmp", target.filename().string(), ::getpid(), counter.fetch_add(1)))
              .string();
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);  // the umask applies
    if (fd < 0 && (errno != EEXIST || attempt > 100)) fail(o, "cannot create '{}': {}", tmp, errno_text());
  }
  try {
    write_all(fd, p.header.data(), p.header.size(), o, tmp);
    for (const Tensor& t : p.data) write_all(fd, t.data_ptr(), t.nbytes(), o, tmp);
    if (::close(fd) != 0) {
      fd = -1;
      fail(o, "cannot write '{}': {}", tmp, errno_text());
    }
    fd = -1;
    if (::rename(tmp.c_str(), path.c_str()) != 0) fail(o, "cannot rename '{}' to it: {}", tmp, errno_text());
  } catch (...) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
}

// ---- reading ----

// A private mapping of a whole file; tensors viewing it share it through their deleters.
struct Mapping {
  void* addr = nullptr;
  size_t size = 0;
  Mapping(void* a, size_t s) : addr(a), size(s) {}
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping() { ::munmap(addr, size); }
};

// BOOL bytes other than 0 and 1 are valid in the format (numpy reads them as true) but not as a
// C++ bool: such a tensor is copied with them made 1.
bool bools_need_fixing(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] > 1) return true;
  return false;
}

Tensor make_tensor(const stf::Entry& e, const uint8_t* data_section, const std::shared_ptr<Mapping>& mapping,
                   const Origin& o) {
  auto st = ember_dtype(e.dtype);
  if (!st)
    fail<NotImplementedError>(o, "tensor '{}' has dtype {}, which Ember does not have", e.name,
                              stf::dtype_name(e.dtype));
  // An empty tensor may have any dimensions in the format; Ember's sizes and strides are int64.
  std::vector<int64_t> shape;
  int64_t span = 1;
  for (uint64_t d : e.shape) {
    if (d > static_cast<uint64_t>(INT64_MAX) ||
        (d != 0 && __builtin_mul_overflow(span, static_cast<int64_t>(d), &span)))
      fail(o, "tensor '{}': shape [{}] is too large for Ember's int64 sizes", e.name, fmt::join(e.shape, ", "));
    shape.push_back(static_cast<int64_t>(d));
  }
  const uint8_t* p = data_section + e.begin;
  const size_t nbytes = e.end - e.begin;
  const bool fix_bools = *st == kBool && bools_need_fixing(p, nbytes);
  const bool aligned = reinterpret_cast<uintptr_t>(p) % element_size(*st) == 0;
  if (mapping && nbytes > 0 && aligned && !fix_bools) {
    std::shared_ptr<Mapping> keep = mapping;
    return from_blob(
        const_cast<uint8_t*>(p), shape, [keep](void*) {}, *st);
  }
  Tensor t = make_empty(shape, *st, kCPU);
  if (nbytes > 0) std::memcpy(t.data_ptr(), p, nbytes);
  if (fix_bools) {
    auto* b = static_cast<uint8_t*>(t.data_ptr());
    for (size_t i = 0; i < nbytes; ++i) b[i] = b[i] != 0;
  }
  return t;
}

OrderedDict<std::string, Tensor> make_tensors(const stf::Header& h, const uint8_t* data,
                                              const std::shared_ptr<Mapping>& mapping, const Origin& o) {
  OrderedDict<std::string, Tensor> out;
  out.reserve(h.entries.size());
  for (const auto& e : h.entries) out.insert(e.name, make_tensor(e, data + h.data_start, mapping, o));
  return out;
}

struct MappedFile {
  std::shared_ptr<Mapping> mapping;
  stf::Header header;
};

MappedFile map_file(const std::string& path, const Origin& o) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(o, "cannot open: {}", errno_text());
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail(o, "cannot stat: {}", errno_text());
  if (!S_ISREG(st.st_mode)) fail(o, "not a regular file");
  const auto size = static_cast<size_t>(st.st_size);
  if (size < 8) {  // too small to map usefully; parse reports it
    uint8_t buf[8];
    ssize_t n = ::pread(fd, buf, size, 0);
    stf::parse(buf, n < 0 ? 0 : static_cast<size_t>(n), o);
  }
  // Writable and private: a write to a tensor copies the page, the file never changes.
  void* addr = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  if (addr == MAP_FAILED) fail(o, "cannot map {} bytes: {}", size, errno_text());
  auto mapping = std::make_shared<Mapping>(addr, size);
  auto header = stf::parse(static_cast<const uint8_t*>(addr), size, o);
  return {std::move(mapping), std::move(header)};
}

OrderedDict<std::string, Tensor> load_path(const std::string& path, const char* fn) {
  std::string source = fmt::format("file '{}'", path);
  Origin o{fn, source};
  MappedFile f = map_file(path, o);
  return make_tensors(f.header, static_cast<const uint8_t*>(f.mapping->addr), f.mapping, o);
}

void save_path(const OrderedDict<std::string, Tensor>& tensors, const std::string& path,
               const safetensors::Metadata& metadata, const char* fn) {
  std::string source = fmt::format("file '{}'", path);
  Origin o{fn, source};
  write_file(path, prepare(tensors, metadata, o), o);
}

}  // namespace

void save(const OrderedDict<std::string, Tensor>& tensors, const std::string& path) {
  save_path(tensors, path, {}, "save");
}

OrderedDict<std::string, Tensor> load(const std::string& path) { return load_path(path, "load"); }

namespace safetensors {

void save_file(const OrderedDict<std::string, Tensor>& tensors, const std::string& path, const Metadata& metadata) {
  save_path(tensors, path, metadata, "safetensors::save_file");
}

OrderedDict<std::string, Tensor> load_file(const std::string& path) {
  return load_path(path, "safetensors::load_file");
}

Metadata load_metadata(const std::string& path) {
  std::string source = fmt::format("file '{}'", path);
  MappedFile f = map_file(path, Origin{"safetensors::load_metadata", source});
  return f.header.metadata.value_or(Metadata{});
}

std::vector<uint8_t> save(const OrderedDict<std::string, Tensor>& tensors, const Metadata& metadata) {
  Prepared p = prepare(tensors, metadata, Origin{"safetensors::save", "in memory"});
  size_t total = p.header.size();
  for (const Tensor& t : p.data) total += t.nbytes();
  std::vector<uint8_t> out;
  out.reserve(total);
  out.insert(out.end(), p.header.begin(), p.header.end());
  for (const Tensor& t : p.data) {
    auto* b = static_cast<const uint8_t*>(t.data_ptr());
    out.insert(out.end(), b, b + t.nbytes());
  }
  return out;
}

OrderedDict<std::string, Tensor> load(const uint8_t* data, size_t size) {
  std::string source = fmt::format("buffer of {} bytes", size);
  Origin o{"safetensors::load", source};
  EMBER_CHECK(data != nullptr || size == 0, "[safetensors::load] data: expected a pointer, got null");
  return make_tensors(stf::parse(data, size, o), data, nullptr, o);
}

OrderedDict<std::string, Tensor> load(const std::vector<uint8_t>& bytes) { return load(bytes.data(), bytes.size()); }

}  // namespace safetensors
}  // namespace ember
