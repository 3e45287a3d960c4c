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

# gpuwatch_module_beside(FILE_NAME DIR): FILE_NAME.so of the build tree's modules also in DIR (a symbolic link),
# where a module's loader looks first for a binary in DIR (test binaries that start what loads the module).
function(gpuwatch_module_beside file_name dir)
  file(MAKE_DIRECTORY ${dir})
  file(CREATE_LINK ${PROJECT_BINARY_DIR}/${file_name}.so ${dir}/${file_name}.so SYMBOLIC)
endfunction()
