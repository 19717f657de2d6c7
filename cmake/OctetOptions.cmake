# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The octet authors
#
# Tri-state backend options. AUTO: build the backend when its toolchain is found; ON: fail the
# configure step when it is missing; OFF: skip it.

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

message(STATUS "octet backends found: cuda=${OCTET_HAVE_CUDA} (${CMAKE_CUDA_COMPILER}, arch ${CMAKE_CUDA_ARCHITECTURES}) hip=${OCTET_HAVE_HIP} python=${OCTET_HAVE_PYTHON}")
