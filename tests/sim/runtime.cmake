# SPDX-License-Identifier: MIT
# The simulated CUDA runtime, libcudart.so.13 (docs/simulator.md), and the tests that prove it:
# every entry point with exact results, how it reaches the driver, cudaGetDriverEntryPoint*,
# initialisation failures, 16 threads, and a real nvcc-built program. Included from
# tests/sim/CMakeLists.txt after the driver target.

# Linked like the real one: every export in the version node libcudart.so.13 (nvcc-built
# programs bind cudaMalloc@libcudart.so.13), -Bsymbolic because the real one is DT_SYMBOLIC (its
# internal calls never reach interposed runtime symbols), and no libcuda: it dlopens the driver.
add_library(sim_cudart SHARED sim_runtime.c sim_runtime_device.c sim_runtime_memory.c
  sim_runtime_copy.c sim_runtime_stream.c sim_runtime_graph.c
  sim_runtime_texture.c sim_runtime_launch.c)
set_target_properties(sim_cudart PROPERTIES OUTPUT_NAME cudart SOVERSION 13
  LIBRARY_OUTPUT_DIRECTORY ${VT_SIM_DIR}
  LINK_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/libcudart.map)
target_include_directories(sim_cudart PRIVATE ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_SOURCE_DIR}/src)
target_link_libraries(sim_cudart PRIVATE ${CMAKE_DL_LIBS} Threads::Threads)
target_link_options(sim_cudart PRIVATE -Wl,-Bsymbolic -Wl,--no-undefined
  -Wl,--version-script=${CMAKE_CURRENT_SOURCE_DIR}/libcudart.map)
vt_target_flags(sim_cudart)

# A directory holding the simulated runtime and no driver, for the "no driver installed" test.
set(VT_SIM_RT_ONLY_DIR ${CMAKE_CURRENT_BINARY_DIR}/rt-without-driver)
add_custom_command(TARGET sim_cudart POST_BUILD
  COMMAND ${CMAKE_COMMAND} -E make_directory ${VT_SIM_RT_ONLY_DIR}
  COMMAND ${CMAKE_COMMAND} -E create_symlink $<TARGET_FILE:sim_cudart>
          ${VT_SIM_RT_ONLY_DIR}/libcudart.so.13
  VERBATIM)

# vt_rt_program(NAME SOURCE...): a C test program written against the CUDA runtime API. It is
# compiled against the toolkit's real headers when the build found them, else against
# vt_cuda.h, and has no RPATH: LD_LIBRARY_PATH decides which libcudart.so.13 loads, exactly as for
# a real program, and the program checks that it was the simulated one (VT_SIM_CUDART).
function(vt_rt_program name)
  add_executable(${name} ${ARGN})
  if(CUDAToolkit_FOUND)
    target_include_directories(${name} PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
    target_compile_definitions(${name} PRIVATE VT_TEST_REAL_CUDA_HEADERS=1)
  else()
    target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/src)
  endif()
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tests ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_definitions(${name} PRIVATE VT_SIM_CUDART="$<TARGET_FILE:sim_cudart>")
  target_link_libraries(${name} PRIVATE sim_cudart ${CMAKE_DL_LIBS} Threads::Threads)
  set_target_properties(${name} PROPERTIES SKIP_BUILD_RPATH ON)
  add_dependencies(${name} sim_cuda)
  vt_target_flags(${name})
endfunction()

# Under AddressSanitizer the runtime must come first in the initial library list, which an
# LD_PRELOAD'ed spy or an uninstrumented nvcc program (loading the instrumented simulator) breaks;
# the order does not matter for these tests, so the check is turned off for them.
set(VT_RT_SANITIZER_ENV "")
if(VRAMTRACE_SANITIZE MATCHES "address")
  set(VT_RT_SANITIZER_ENV "ASAN_OPTIONS=verify_asan_link_order=0")
endif()

# vt_rt_test(NAME PROGRAM [ARGS...] ENV VAR=VALUE...): a ctest of PROGRAM with the simulated
# device on LD_LIBRARY_PATH and the given environment.
function(vt_rt_test name program)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "ARGS;ENV")
  add_test(NAME ${name} COMMAND ${program} ${arg_ARGS})
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77
    ENVIRONMENT "LD_LIBRARY_PATH=${VT_SIM_DIR};${arg_ENV};${VT_RT_SANITIZER_ENV}")
endfunction()

vt_rt_program(t_rt_api t_rt_api.c)
vt_rt_test(rt_api t_rt_api ENV VTSIM_DEVICE_COUNT=2 VTSIM_DEVICE_MEMORY=1G)

vt_rt_program(t_rt_threads t_rt_threads.c)
vt_rt_test(rt_threads t_rt_threads ENV VTSIM_DEVICE_MEMORY=1G)

vt_rt_program(t_rt_entry_points t_rt_entry_points.c)
vt_rt_test(rt_entry_points t_rt_entry_points ENV VTSIM_DEVICE_MEMORY=1G)

vt_rt_program(t_rt_init_errors t_rt_init_errors.c)
vt_rt_test(rt_no_device t_rt_init_errors ARGS no-device ENV VTSIM_DEVICE_COUNT=0)
vt_rt_test(rt_old_driver t_rt_init_errors ARGS old-driver ENV VTSIM_DRIVER_VERSION=12080)
add_test(NAME rt_no_driver COMMAND t_rt_init_errors no-driver)
set_tests_properties(rt_no_driver PROPERTIES SKIP_RETURN_CODE 77
  ENVIRONMENT "LD_LIBRARY_PATH=${VT_SIM_RT_ONLY_DIR};${VT_RT_SANITIZER_ENV}")

# The spy is built optimised whatever the build type: its dlsym and dlopen forwards must be
# tail calls (t_rt_spy_preload.c says why). It gets vt_target_flags' warnings but never its
# sanitizers: a sanitizer runtime calls dlsym while it initialises, so instrumented spy code would
# run before its shadow memory exists.
add_library(t_rt_spy_preload MODULE t_rt_spy_preload.c)
target_compile_options(t_rt_spy_preload PRIVATE -O2 -foptimize-sibling-calls -Wall -Wextra
  -Wstrict-prototypes -Werror=implicit-function-declaration -fvisibility=hidden
  $<$<BOOL:${VRAMTRACE_WERROR}>:-Werror>)
target_compile_definitions(t_rt_spy_preload PRIVATE _GNU_SOURCE)
target_link_libraries(t_rt_spy_preload PRIVATE ${CMAKE_DL_LIBS} Threads::Threads)
vt_rt_program(t_rt_driver_path t_rt_driver_path.c)
add_dependencies(t_rt_driver_path t_rt_spy_preload)
vt_rt_test(rt_driver_path t_rt_driver_path
  ENV VTSIM_DEVICE_MEMORY=1G LD_PRELOAD=$<TARGET_FILE:t_rt_spy_preload>)

# A real nvcc -cudart shared program: linked against the toolkit's libcudart, run on ours.
if(CMAKE_CUDA_COMPILER)
  add_executable(t_rt_nvcc t_rt_nvcc.cu)
  set_target_properties(t_rt_nvcc PROPERTIES CUDA_RUNTIME_LIBRARY Shared CUDA_ARCHITECTURES 90
    SKIP_BUILD_RPATH ON)
  target_include_directories(t_rt_nvcc PRIVATE ${CMAKE_SOURCE_DIR}/tests ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_definitions(t_rt_nvcc PRIVATE VT_TEST_REAL_CUDA_HEADERS=1
    VT_SIM_CUDART="$<TARGET_FILE:sim_cudart>")
  target_link_libraries(t_rt_nvcc PRIVATE ${CMAKE_DL_LIBS})
  add_dependencies(t_rt_nvcc sim_cudart sim_cuda)
  vt_rt_test(rt_nvcc_program t_rt_nvcc ENV VTSIM_DEVICE_MEMORY=1G)
endif()

vt_rt_program(t_rt_streams t_rt_streams.c)
vt_rt_test(rt_streams t_rt_streams ENV VTSIM_DEVICE_MEMORY=1G)

vt_rt_program(t_rt_more t_rt_more.c)
vt_rt_test(rt_more t_rt_more ENV VTSIM_DEVICE_COUNT=2 VTSIM_DEVICE_MEMORY=1G)
