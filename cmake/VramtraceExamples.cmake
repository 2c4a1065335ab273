# SPDX-License-Identifier: MIT
# vt_example_program(NAME SOURCE): a program written as a real CUDA program (the examples, and
# tests that run such a program on the simulated device): compiled against the toolkit's headers
# and runtime when present, so that it runs on a GPU as it is, else against vramtrace's own
# declarations and the simulated runtime (sim_cudart).
function(vt_example_program name source)
  add_executable(${name} ${source})
  vt_target_flags(${name})
  if(CUDAToolkit_FOUND)
    target_compile_definitions(${name} PRIVATE VT_EXAMPLE_REAL_CUDA_HEADERS)
    target_link_libraries(${name} PRIVATE CUDA::cudart)
  else()
    target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/src)
    target_link_libraries(${name} PRIVATE sim_cudart)
  endif()
endfunction()
