# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The octet authors
#
# A command that must fail and write nothing: empties OUTDIR, runs run_expect.cmake (exit code,
# stdout / stderr regexes), then checks that OUTDIR is still empty (no output file, no temporary
# such as .out.h5.tmp-<pid>-<n>). cmake -DOUTDIR=... plus run_expect.cmake's -D arguments.
file(REMOVE_RECURSE "${OUTDIR}")
file(MAKE_DIRECTORY "${OUTDIR}")
include("${CMAKE_CURRENT_LIST_DIR}/run_expect.cmake")
file(GLOB left LIST_DIRECTORIES true "${OUTDIR}/*" "${OUTDIR}/.*")
list(REMOVE_DUPLICATES left)
if(left)
  message(FATAL_ERROR "octet ${ARGS}: left files in ${OUTDIR}: ${left}")
endif()
