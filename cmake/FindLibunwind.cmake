# SPDX-License-Identifier: MIT
# Finds the nongnu libunwind (Debian: libunwind-dev) through pkg-config; defines
# Libunwind::Libunwind. LLVM's libunwind has the same name but no unw_backtrace caching API.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PC_LIBUNWIND QUIET libunwind)
endif()
find_path(Libunwind_INCLUDE_DIR libunwind.h HINTS ${PC_LIBUNWIND_INCLUDE_DIRS})
find_library(Libunwind_LIBRARY NAMES unwind HINTS ${PC_LIBUNWIND_LIBRARY_DIRS})
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Libunwind
  REQUIRED_VARS Libunwind_LIBRARY Libunwind_INCLUDE_DIR
  REASON_FAILURE_MESSAGE "install libunwind-dev (apt-get install libunwind-dev)")
if(Libunwind_FOUND AND NOT TARGET Libunwind::Libunwind)
  add_library(Libunwind::Libunwind UNKNOWN IMPORTED)
  set_target_properties(Libunwind::Libunwind PROPERTIES
    IMPORTED_LOCATION "${Libunwind_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${Libunwind_INCLUDE_DIR}")
endif()
