// Prints the layouts of gpuwatch's own NVML declarations (see abi_layout_fields.inc).
#include <cstdio>

#include "sources/nvml/nvml_abi.h"

int main() {
#define SIZE(type) std::printf("sizeof(%s) = %zu\n", #type, sizeof(type));
#define FIELD(type, member) std::printf("offsetof(%s, %s) = %zu\n", #type, #member, offsetof(type, member));
#define CONSTANT(name) std::printf("%s = 0x%08x\n", #name, static_cast<unsigned>(name));
#include "abi_layout_fields.inc"
  return 0;
}
