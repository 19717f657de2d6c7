// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The octet authors
//
// fuzz_reader.cpp — libFuzzer target for the golden-file reader (golden/src/h5.cpp). Each input is
// the bytes of an HDF5 file. It is opened with octet::golden::Reader and everything a golden
// command reads from it is read: the root attributes, every case, its attributes, every dataset
// through read_tensor (the reads of `octet run`, `octet golden list`). A GoldenError is a correct
// answer; a crash, an uncaught exception, a sanitizer report, a leak, or an HDF5 identifier left
// open after the Reader is gone is a bug.
//
// The bytes go to one file per process on a memory file system (/dev/shm when it exists, else
// $TMPDIR or /tmp), removed after each input: the Reader takes a path, and HDF5 resolves it, so
// an anonymous memory file will not do.
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "octet/golden/h5.hpp"

namespace {

// The input's path: one per process, on /dev/shm when it exists, else the temporary directory.
const std::string& input_path() {
  static const std::string path = [] {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path dir = "/dev/shm";
    if (!fs::is_directory(dir, ec)) dir = fs::temp_directory_path();
    return (dir / ("octet-fuzz-golden-" + std::to_string(::getpid()) + ".h5")).string();
  }();
  return path;
}

void write_input(const std::string& path, const std::uint8_t* data, std::size_t size) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const bool ok = fd >= 0 && ::write(fd, data, size) == ssize_t(size);
  if (fd >= 0) ::close(fd);
  if (!ok) {
    std::perror(path.c_str());
    std::abort();
  }
}

// Reads everything a golden command could read; a GoldenError at any step ends the input.
void read_everything(const std::string& path) {
  using namespace octet::golden;
  try {
    const Reader r(path);
    for (const std::string& c : r.cases()) {
      try {
        const CaseAttributes attrs = r.case_attributes(c);
        (void)attrs;
      } catch (const GoldenError&) {
      }
      std::vector<std::string> names;
      try {
        names = r.datasets(c);
      } catch (const GoldenError&) {
        continue;
      }
      for (const std::string& d : names) {
        try {
          const Tensor t = r.read_tensor(c, d);
          // What the CLI derives from a tensor must be defined for every accepted one.
          if (std::uint64_t(t.numel()) * std::uint64_t(lookup_dtype(t.dtype)->element_size) != t.bytes.size())
            std::abort();
        } catch (const GoldenError&) {
        }
      }
    }
  } catch (const GoldenError&) {
  }
}

// Identifiers of every kind the reader opens. The library's own (predefined types, default
// property lists) stay constant, so any difference across one input is an identifier leaked by
// h5.cpp: LeakSanitizer cannot see those, as HDF5 keeps them reachable.
std::vector<ssize_t> open_identifiers() {
  std::vector<ssize_t> n;
  for (const H5I_type_t type : {H5I_FILE, H5I_GROUP, H5I_DATASET, H5I_ATTR, H5I_DATATYPE, H5I_DATASPACE,
                                H5I_GENPROP_LST}) {
    hsize_t members = 0;
    n.push_back(H5Inmembers(type, &members) < 0 ? -1 : ssize_t(members));
  }
  return n;
}

}  // namespace

// HDF5 1.10 loses small blocks on some error paths while decoding corrupt object headers
// (allocations made and lost inside libhdf5 itself, e.g. under H5O_protect). They are HDF5's,
// not the reader's; the identifier count above covers what the reader owns.
extern "C" const char* __lsan_default_suppressions() { return "leak:libhdf5\n"; }

// Some corrupt headers make HDF5 1.10 compute a negative size and pass it to realloc; outside the
// sanitizer the allocation fails, HDF5 reports an error and the reader a GoldenError. The fuzzer
// keeps that behaviour instead of aborting in ASan's allocator (the reader's own allocations
// would still fail loudly: std::bad_alloc is not a GoldenError).
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = input_path();
  write_input(path, data, size);
  read_everything(path);
  ::unlink(path.c_str());  // libFuzzer leaves without running atexit handlers
  // The first input also initialises the library (its predefined types and property lists).
  static const std::vector<ssize_t> baseline = open_identifiers();
  if (open_identifiers() != baseline) {
    std::fprintf(stderr, "fuzz_reader: HDF5 identifiers left open by the reader\n");
    std::abort();
  }
  return 0;
}
