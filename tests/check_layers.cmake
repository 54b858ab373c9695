# Checks that solver/'s includes point down its layers (README.md, Layout):
#   app → backends → parallel → case → physics → neighbours, with io/ usable from every layer
#   and io/ itself using nothing of solver/ but io/.
# Run by ctest as Layout.IncludesPointDown: cmake -DSOURCE_DIR=<repo> -P check_layers.cmake
# A violation prints "FILE: includes LAYER/…, which is above LAYER" and fails the test.
# app/ also sees the backends through their closed interface only (DESIGN.md, The step): of
# backends/ it may include the headers in app_backend_headers, nothing of backends/cpu/ or
# backends/cuda/ and no other backends/ header.
cmake_minimum_required(VERSION 3.24) # IN_LIST
set(allowed_app "app;backends;case;physics;parallel;io;neighbours")
set(allowed_backends "backends;case;physics;parallel;io;neighbours")
set(allowed_case "case;physics;io;neighbours")
set(allowed_physics "physics;io;neighbours")
set(allowed_parallel "parallel;case;physics;io;neighbours")
set(allowed_io "io")
set(app_backend_headers "backends/simulation.h;backends/backend_options.h")
string(REPLACE ";" " and " app_backend_list "${app_backend_headers}")

file(GLOB_RECURSE sources RELATIVE "${SOURCE_DIR}/solver"
     "${SOURCE_DIR}/solver/*.h" "${SOURCE_DIR}/solver/*.cpp" "${SOURCE_DIR}/solver/*.cu"
     "${SOURCE_DIR}/solver/*.cuh")
set(violations 0)
set(checked 0)
foreach(source IN LISTS sources)
  string(REGEX MATCH "^[^/]+" layer "${source}")
  if(NOT DEFINED allowed_${layer})
    message(SEND_ERROR "solver/${source}: in no layer (solver/ holds only the layer folders)")
    math(EXPR violations "${violations} + 1")
    continue()
  endif()
  file(STRINGS "${SOURCE_DIR}/solver/${source}" includes REGEX "^#include \"")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" target "${line}")
    string(REGEX MATCH "^[^/]+" target_layer "${target}")
    math(EXPR checked "${checked} + 1")
    if(NOT target MATCHES "/" OR NOT target_layer IN_LIST allowed_${layer})
      message(SEND_ERROR "solver/${source}: includes \"${target}\", which layer '${layer}' may "
                         "not use (it may use: ${allowed_${layer}})")
      math(EXPR violations "${violations} + 1")
    elseif(layer STREQUAL "app" AND target_layer STREQUAL "backends" AND
           NOT target IN_LIST app_backend_headers)
      if(target MATCHES "^backends/(cpu|cuda)/")
        set(why "a backend's own code")
      else()
        set(why "not the backends' interface")
      endif()
      message(SEND_ERROR "solver/${source}: includes \"${target}\", ${why}: app/ may include of "
                         "backends/ only ${app_backend_list} (move what it needs there, or "
                         "into case/, io/ or parallel/)")
      math(EXPR violations "${violations} + 1")
    endif()
  endforeach()
endforeach()
if(checked EQUAL 0)
  message(FATAL_ERROR "no include found under ${SOURCE_DIR}/solver: wrong SOURCE_DIR?")
endif()
if(violations GREATER 0)
  message(FATAL_ERROR "${violations} include(s) point up or sideways")
endif()
message(STATUS "${checked} includes in solver/ point down the layers")
