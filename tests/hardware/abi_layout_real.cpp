// Prints the layouts of the real nvml.h (see abi_layout_fields.inc); built only on a machine with the CUDA
// toolkit, by scripts/hardware/validate.sh.
#include <nvml.h>

#include <cstddef>
#include <cstdio>

int main() {
#define SIZE(type) std::printf("sizeof(%s) = %zu\n", #type, sizeof(type));
#define FIELD(type, member) std::printf("offsetof(%s, %s) = %zu\n", #type, #member, offsetof(type, member));
#define CONSTANT(name) std::printf("%s = 0x%08x\n", #name, static_cast<unsigned>(name));
#include "abi_layout_fields.inc"
  return 0;
}
