# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The octet authors
#
# Tri-state options (backends, fuzzing). AUTO: build the part when its toolchain is found; ON: fail
# the configure step when it is missing; OFF: skip it.

function(octet_tristate NAME DOC)
  set(${NAME} AUTO CACHE STRING "${DOC} (AUTO|ON|OFF)")
  set_property(CACHE ${NAME} PROPERTY STRINGS AUTO ON OFF)
  string(TOUPPER "${${NAME}}" value)
  if(NOT value MATCHES "^(AUTO|ON|OFF)$")
    message(FATAL_ERROR "${NAME}=${${NAME}}: valid values are AUTO, ON, OFF")
  endif()
  set(${NAME} ${value} PARENT_SCOPE)
endfunction()

octet_tristate(OCTET_CUDA "Build the CUDA backend (sm_90a)")
octet_tristate(OCTET_HIP "Build the HIP backend (gfx90a, gfx940)")
octet_tristate(OCTET_PYTHON "Use the Python venv of the build tree for cross-library checks")

# CUDA: compiled whenever nvcc is found, for sm_90a, also on machines without a GPU.
set(OCTET_HAVE_CUDA no)
if(NOT OCTET_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90a)
    endif()
    enable_language(CUDA)
    # CMake 3.25 does not know nvcc 13's C++20 flag; octet's CUDA targets add -std=c++20 themselves.
    set(OCTET_HAVE_CUDA yes)
  elseif(OCTET_CUDA STREQUAL "ON")
    message(FATAL_ERROR "OCTET_CUDA=ON but no CUDA compiler (nvcc) was found")
  endif()
endif()

set(OCTET_HAVE_HIP no)
if(NOT OCTET_HIP STREQUAL "OFF")
  find_program(OCTET_HIPCC hipcc)
  if(OCTET_HIPCC)
    set(OCTET_HAVE_HIP yes)
  elseif(OCTET_HIP STREQUAL "ON")
    message(FATAL_ERROR "OCTET_HIP=ON but hipcc was not found")
  endif()
endif()

# Python: the venv that scripts/install-deps.sh creates inside the build tree.
set(OCTET_HAVE_PYTHON no)
set(OCTET_VENV "${CMAKE_BINARY_DIR}/venv" CACHE PATH "Python venv with numpy and ml_dtypes")
if(NOT OCTET_PYTHON STREQUAL "OFF")
  if(EXISTS "${OCTET_VENV}/bin/python")
    set(OCTET_PYTHON_EXE "${OCTET_VENV}/bin/python")
    set(OCTET_HAVE_PYTHON yes)
  elseif(OCTET_PYTHON STREQUAL "ON")
    message(FATAL_ERROR "OCTET_PYTHON=ON but ${OCTET_VENV}/bin/python is missing (run scripts/install-deps.sh)")
  endif()
endif()

# Fuzzing (tests/fuzz): libFuzzer targets need clang. With another C++ compiler a clang++ found on
# the PATH builds them by itself; the probe checks that it links -fsanitize=fuzzer,address,undefined.
octet_tristate(OCTET_FUZZ "Build the libFuzzer targets (needs clang++ with libFuzzer)")
set(OCTET_HAVE_FUZZ no)
if(NOT OCTET_FUZZ STREQUAL "OFF")
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    set(OCTET_FUZZ_CXX "${CMAKE_CXX_COMPILER}" CACHE FILEPATH "clang++ that builds the fuzz targets")
  else()
    find_program(OCTET_FUZZ_CXX NAMES clang++ clang++-19 clang++-18 clang++-17 clang++-16 clang++-15 clang++-14
                 DOC "clang++ that builds the fuzz targets")
  endif()
  if(OCTET_FUZZ_CXX)
    set(probe_dir "${CMAKE_BINARY_DIR}/CMakeFiles/octet_fuzz_probe")
    file(WRITE "${probe_dir}/probe.cpp"
         "#include <cstddef>\n#include <cstdint>\n"
         "extern \"C\" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }\n")
    execute_process(COMMAND "${OCTET_FUZZ_CXX}" -fsanitize=fuzzer,address,undefined "${probe_dir}/probe.cpp"
                            -o "${probe_dir}/probe"
                    RESULT_VARIABLE probe_rc OUTPUT_QUIET ERROR_QUIET)
    if(probe_rc EQUAL 0)
      set(OCTET_HAVE_FUZZ yes)
    endif()
  endif()
  if(NOT OCTET_HAVE_FUZZ AND OCTET_FUZZ STREQUAL "ON")
    message(FATAL_ERROR "OCTET_FUZZ=ON but no clang++ that links -fsanitize=fuzzer was found (OCTET_FUZZ_CXX)")
  endif()
endif()

message(STATUS "octet backends found: cuda=${OCTET_HAVE_CUDA} (${CMAKE_CUDA_COMPILER}, arch ${CMAKE_CUDA_ARCHITECTURES}) hip=${OCTET_HAVE_HIP} python=${OCTET_HAVE_PYTHON} fuzz=${OCTET_HAVE_FUZZ}")
