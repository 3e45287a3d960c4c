# The libraries the binary links, statically where the system has their archives (GPUWATCH_STATIC_DEPS, on by
# default): every shared library costs every start its mapping, relocations and symbol lookups, and the
# one-shot commands pay that on each run (about 1 ms of `gpuwatch status`'s CPU, docs/benchmarks.md). The
# price is that a security update of one of them reaches gpuwatch when gpuwatch is rebuilt. The simulator and
# the optional modules keep their shared libraries: they are loaded only when used.
option(GPUWATCH_STATIC_DEPS "Link SQLite, zstd, RE2, yaml-cpp, spdlog and fmt into the binary where they can be" ON)

# gpuwatch_dependency(NAME ARCHIVE SHARED_TARGET [LIBS...]): the target gpuwatch::NAME. With static linking on
# and ARCHIVE (e.g. libre2.a) found, it links the archive and LIBS (what the archive needs) and takes
# SHARED_TARGET's include directories and compile options; otherwise it is SHARED_TARGET.
function(gpuwatch_dependency name archive shared)
  add_library(gpuwatch::${name} INTERFACE IMPORTED GLOBAL)
  if(GPUWATCH_STATIC_DEPS)
    find_library(GPUWATCH_${name}_ARCHIVE NAMES ${archive})
  endif()
  if(NOT GPUWATCH_STATIC_DEPS OR NOT GPUWATCH_${name}_ARCHIVE)
    target_link_libraries(gpuwatch::${name} INTERFACE ${shared})
    return()
  endif()
  target_link_libraries(gpuwatch::${name} INTERFACE ${GPUWATCH_${name}_ARCHIVE} ${ARGN})
  foreach(property INTERFACE_INCLUDE_DIRECTORIES INTERFACE_COMPILE_OPTIONS INTERFACE_COMPILE_DEFINITIONS)
    get_target_property(value ${shared} ${property})
    if(value)
      set_property(TARGET gpuwatch::${name} APPEND PROPERTY ${property} ${value})
    endif()
  endforeach()
endfunction()

pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(SQLITE3 REQUIRED IMPORTED_TARGET sqlite3)
# zlib stays shared: Debian's lintian refuses a package that embeds it (embedded-library), and it is one small
# library.
add_library(gpuwatch::zlib INTERFACE IMPORTED GLOBAL)
target_link_libraries(gpuwatch::zlib INTERFACE ZLIB::ZLIB)
gpuwatch_dependency(zstd libzstd.a PkgConfig::ZSTD Threads::Threads)
gpuwatch_dependency(sqlite3 libsqlite3.a PkgConfig::SQLITE3 gpuwatch::zlib m ${CMAKE_DL_LIBS} Threads::Threads)
gpuwatch_dependency(re2 libre2.a PkgConfig::RE2 Threads::Threads)
gpuwatch_dependency(yaml-cpp libyaml-cpp.a yaml-cpp)

# spdlog and fmt, which Debian ships as shared libraries only, are compiled into the binary from their headers
# instead: libspdlog alone asks the dynamic loader for 1,500 symbols at every start.
find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)
add_library(gpuwatch::fmt INTERFACE IMPORTED GLOBAL)
add_library(gpuwatch::spdlog INTERFACE IMPORTED GLOBAL)
if(GPUWATCH_STATIC_DEPS AND TARGET fmt::fmt-header-only AND TARGET spdlog::spdlog_header_only)
  target_link_libraries(gpuwatch::fmt INTERFACE fmt::fmt-header-only)
  get_target_property(spdlog_includes spdlog::spdlog_header_only INTERFACE_INCLUDE_DIRECTORIES)
  set_target_properties(gpuwatch::spdlog PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${spdlog_includes}"
                                                    INTERFACE_COMPILE_DEFINITIONS SPDLOG_FMT_EXTERNAL)
  target_link_libraries(gpuwatch::spdlog INTERFACE gpuwatch::fmt Threads::Threads)
else()
  target_link_libraries(gpuwatch::fmt INTERFACE fmt::fmt)
  target_link_libraries(gpuwatch::spdlog INTERFACE spdlog::spdlog)
endif()
