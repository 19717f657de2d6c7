# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The octet authors
#
# Runs one `octet` command line and checks its exit code, and optionally its stdout / stderr
# against regular expressions. cmake -DEXE=... -DARGS=a|b|c -DRC=0 [-DSTDOUT=re] [-DSTDERR=re]
# -P run_expect.cmake. ARGS is '|'-separated, so that arguments may hold ';'-free regex text.
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND "${EXE}" ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(cmd "octet ${ARGS}")
string(REPLACE "|" " " cmd "${cmd}")
if(NOT rc STREQUAL "${RC}")
  message(FATAL_ERROR "${cmd}: exit code ${rc}, want ${RC}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(NOT "${STDOUT}" STREQUAL "" AND NOT out MATCHES "${STDOUT}")
  message(FATAL_ERROR "${cmd}: stdout does not match '${STDOUT}'\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(NOT "${STDERR}" STREQUAL "" AND NOT err MATCHES "${STDERR}")
  message(FATAL_ERROR "${cmd}: stderr does not match '${STDERR}'\nstdout:\n${out}\nstderr:\n${err}")
endif()
message(STATUS "${cmd}: exit code ${rc} as expected")
