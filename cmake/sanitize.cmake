# TRAINTWIN_SANITIZE: a comma-separated list of sanitizers for every target (e.g. address,undefined); empty = none.
# Used for a separate build directory (see docs/reliability.md): the suite under ASan+UBSan. Sets
# TRAINTWIN_SANITIZED (ON when any sanitizer is on) so that the top-level file can leave jemalloc out (the sanitizer's
# allocator must see every allocation) and the SimGrid session can pick thread contexts (ASan does not follow SimGrid's
# own stack switching in a library built without its fiber annotations).
set(TRAINTWIN_SANITIZE "" CACHE STRING "Sanitizers for every target, comma-separated (address,undefined); empty: none")
set(TRAINTWIN_SANITIZED OFF)
if(TRAINTWIN_SANITIZE)
  if(NOT TRAINTWIN_SANITIZE MATCHES "^(address|undefined|leak)(,(address|undefined|leak))*$")
    message(FATAL_ERROR "TRAINTWIN_SANITIZE must list address, undefined or leak (comma-separated), "
                        "not '${TRAINTWIN_SANITIZE}'")
  endif()
  if(TRAINTWIN_CUDA STREQUAL "ON")
    message(FATAL_ERROR "TRAINTWIN_SANITIZE with TRAINTWIN_CUDA=ON: nvcc's host code is not instrumented; use OFF")
  endif()
  set(TRAINTWIN_SANITIZED ON)
  # -fno-sanitize-recover: a UBSan finding fails the test (by default UBSan prints and goes on).
  # -fno-omit-frame-pointer and -g: stack traces that name the line.
  set(_tt_san "-fsanitize=${TRAINTWIN_SANITIZE};-fno-sanitize-recover=all;-fno-omit-frame-pointer;-g")
  # GCC's -Wmaybe-uninitialized is not reliable under sanitizers (GCC's manual says instrumentation may cause false
  # warnings): GCC 12 at -O1 with ASan flags libstdc++'s own std::regex (std::function members of _State) in
  # core/topo/topology.cpp, which fails a TRAINTWIN_WERROR=ON build. The sanitizers check the same at run time.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    list(APPEND _tt_san "-Wno-maybe-uninitialized")
  endif()
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${_tt_san}>")
  add_link_options("-fsanitize=${TRAINTWIN_SANITIZE}")
  add_compile_definitions(TRAINTWIN_SANITIZED=1)
  message(STATUS "Sanitizers: ${TRAINTWIN_SANITIZE} (jemalloc left out; SimGrid on thread contexts)")
endif()
