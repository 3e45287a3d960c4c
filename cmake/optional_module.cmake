# gpuwatch_optional_module(TARGET FILE_NAME KIND SOURCES...): an optional module (docs/architecture.md, "Optional
# modules"), FILE_NAME.so of KIND (MODULE, or SHARED where tests link it too) built next to the binary, where the
# binary looks first, from SOURCES that include gpuwatch's headers from src/ but link none of its libraries.
function(gpuwatch_optional_module target file_name kind)
  add_library(${target} ${kind} ${ARGN})
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    OUTPUT_NAME ${file_name}
    LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src)
endfunction()
