/* A minimal NVML client that knows nothing of gpuwatch: it loads "libnvidia-ml.so.1" by soname, as tools
   like nvtop do, and lists the GPUs with name, UUID, memory and temperature. */
#include <dlfcn.h>
#include <stdio.h>

typedef int (*init_fn)(void);
typedef int (*count_fn)(unsigned*);
typedef int (*handle_fn)(unsigned, void**);
typedef int (*string_fn)(void*, char*, unsigned);
typedef int (*memory_fn)(void*, unsigned long long*);
typedef int (*temperature_fn)(void*, unsigned, unsigned*);

int main(void) {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
  if (!lib) {
    printf("error: %s\n", dlerror());
    return 1;
  }
  init_fn init = (init_fn)dlsym(lib, "nvmlInit_v2");
  init_fn shutdown = (init_fn)dlsym(lib, "nvmlShutdown");
  count_fn count = (count_fn)dlsym(lib, "nvmlDeviceGetCount_v2");
  handle_fn handle = (handle_fn)dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
  string_fn name = (string_fn)dlsym(lib, "nvmlDeviceGetName");
  string_fn uuid = (string_fn)dlsym(lib, "nvmlDeviceGetUUID");
  memory_fn memory = (memory_fn)dlsym(lib, "nvmlDeviceGetMemoryInfo"); /* {total, free, used} */
  temperature_fn temperature = (temperature_fn)dlsym(lib, "nvmlDeviceGetTemperature");
  if (!init || !shutdown || !count || !handle || !name || !uuid || !memory || !temperature) {
    printf("error: missing symbol\n");
    return 1;
  }
  if (init() != 0) {
    printf("error: nvmlInit_v2 failed\n");
    return 1;
  }
  unsigned n = 0;
  count(&n);
  for (unsigned i = 0; i < n; ++i) {
    void* dev = NULL;
    char gpu_name[96], gpu_uuid[96];
    unsigned long long mem[3] = {0, 0, 0};
    unsigned temp = 0;
    if (handle(i, &dev) != 0 || name(dev, gpu_name, sizeof gpu_name) != 0 ||
        uuid(dev, gpu_uuid, sizeof gpu_uuid) != 0 || memory(dev, mem) != 0 ||
        temperature(dev, 0, &temp) != 0) {
      printf("error: query of GPU %u failed\n", i);
      return 1;
    }
    printf("%u: %s %s %llu MiB %u C\n", i, gpu_name, gpu_uuid, mem[0] >> 20, temp);
  }
  shutdown();
  return 0;
}
