# Installs the build into a fresh prefix and runs the installed program on the installed cases
# from folders other than the source tree's and the case's (README: Install).
# Run by ctest as Install.RunsFromAnywhere:
#   cmake -DBINARY_DIR=<build> -DPREFIX=<empty-able folder> -P install_runs_from_anywhere.cmake
# Fails, naming what, when a file is not installed or `sluice check` exits other than 0.
cmake_minimum_required(VERSION 3.24)

file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BINARY_DIR}" --prefix "${PREFIX}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc}):\n${out}")
endif()

set(share "${PREFIX}/share/sluice")
foreach(file bin/sluice share/sluice/README.md share/sluice/cases/README.md
        share/sluice/cases/dambreak2d.xml
        share/sluice/cases/dambreak_ramp3d.xml share/sluice/cases/ramp.stl
        share/sluice/postprocess/plot_gauges.py share/sluice/postprocess/render.py)
  if(NOT EXISTS "${PREFIX}/${file}")
    message(FATAL_ERROR "not installed: ${PREFIX}/${file}")
  endif()
endforeach()

# README's links (pages and pictures, not web addresses) resolve in the installed tree: the
# installed README is a front door whose doors open.
file(READ "${share}/README.md" readme)
# "](" marked first: a list element holding a square bracket would not split at ';'.
string(REPLACE "](" "@link@" readme "${readme}")
string(REGEX MATCHALL "@link@[^)# ]+" links "${readme}")
set(followed 0)
foreach(link IN LISTS links)
  string(SUBSTRING "${link}" 6 -1 target)
  if(target MATCHES "^[a-z]+:")
    continue()
  endif()
  if(NOT EXISTS "${share}/${target}")
    message(FATAL_ERROR "README.md links ${target}, which is not installed in ${share}")
  endif()
  math(EXPR followed "${followed} + 1")
endforeach()
if(followed LESS 5)
  message(FATAL_ERROR "README.md: only ${followed} links found to follow")
endif()
message(STATUS "README.md: ${followed} links resolve in the installed tree")

# Runs `sluice check CASE` in `folder`; fails unless it exits 0.
function(check_case folder case)
  execute_process(COMMAND "${PREFIX}/bin/sluice" check "${case}" WORKING_DIRECTORY "${folder}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "sluice check ${case} in ${folder} exited ${rc}:\n${out}")
  endif()
  message(STATUS "sluice check ${case} in ${folder}: exit 0")
endfunction()

# An absolute case path from a scratch folder, and a relative one from the prefix: the ramp's
# surface file (ramp.stl) must be found beside the case file, not beside the working folder.
set(scratch "${PREFIX}/scratch")
file(MAKE_DIRECTORY "${scratch}")
check_case("${scratch}" "${share}/cases/dambreak2d.xml")
check_case("${PREFIX}" "share/sluice/cases/dambreak_ramp3d.xml")
file(REMOVE_RECURSE "${PREFIX}")
